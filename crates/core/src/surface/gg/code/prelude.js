// Installs gg, console and performance for one run_code program. Called once, before the
// program, with the run's setup (which functions exist, and the refusal each missing one
// throws) and the four host functions; returns the function that shows the returned value.
(function (setupText, host, log, now) {
  'use strict';
  const setup = JSON.parse(setupText);
  const fail = (text) => {
    const error = new Error(text);
    error.name = 'GgError';
    const colon = text.indexOf(':');
    error.kind = colon > 0 ? text.slice(0, colon) : 'error';
    return error;
  };
  const invoke = (name, args) => {
    const reply = JSON.parse(host(name, JSON.stringify(args)));
    if (reply.error !== undefined) throw fail(reply.error);
    return reply.ok;
  };
  const options = (value, fn, keys) => {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw fail(`invalid-argument: the options of gg.${fn} must be an object like {${keys.join(', ')}}, not ${Array.isArray(value) ? 'an array' : typeof value}`);
    }
    const out = {};
    for (const key of Object.keys(value)) {
      if (!keys.includes(key)) {
        throw fail(`invalid-argument: gg.${fn} has no option ${key}; its options are ${keys.join(', ')}`);
      }
      if (value[key] !== undefined) out[key] = value[key];
    }
    return out;
  };
  const listing = (reply) => {
    const items = reply.items;
    Object.defineProperty(items, 'text', { value: reply.text, enumerable: false });
    Object.defineProperty(items, 'note', {
      value: reply.note === null ? undefined : reply.note,
      enumerable: false,
    });
    return items;
  };
  const api = {
    'files.readFile': (path, opts) => {
      const reply = invoke('files.readFile', { path, ...options(opts, 'files.readFile', ['offset', 'limit']) });
      return reply.image !== undefined ? reply.image : reply.text;
    },
    'files.tree': (path, opts) =>
      listing(invoke('files.tree', { path, ...options(opts, 'files.tree', ['depth']) })),
    'files.search': (query, opts) =>
      listing(invoke('files.search', { query, ...options(opts, 'files.search', ['path', 'limit']) })),
    'files.writeFile': (path, content) => invoke('files.writeFile', { path, content }).text,
    'files.editFile': (path, oldString, newString) =>
      invoke('files.editFile', { path, old_string: oldString, new_string: newString }).text,
    'files.listDir': (path) => listing(invoke('files.listDir', { path })),
    'views.openFile': (path, opts) =>
      invoke('views.openFile', { path, ...options(opts, 'views.openFile', ['offset', 'limit']) }),
  };
  const group = (prefix) => {
    const target = {};
    for (const name of setup.enabled) {
      if (name.startsWith(prefix + '.')) target[name.slice(prefix.length + 1)] = api[name];
    }
    Object.freeze(target);
    // A function this configuration leaves out is absent (not listed, `in` is false), and
    // calling it throws the refusal the tool arm gives.
    return new Proxy(target, {
      get(object, key) {
        const name = typeof key === 'string' ? prefix + '.' + key : undefined;
        if (name !== undefined && Object.prototype.hasOwnProperty.call(setup.denied, name)) {
          return () => {
            throw fail(setup.denied[name]);
          };
        }
        return object[key];
      },
    });
  };
  const show = (value) => {
    if (typeof value === 'string') return value;
    if (value === undefined) return 'undefined';
    if (typeof value === 'function') return '[function]';
    if (typeof value === 'bigint' || typeof value === 'symbol') return value.toString();
    if (value instanceof Error) return String(value);
    try {
      const text = JSON.stringify(value, null, 2);
      return text === undefined ? String(value) : text;
    } catch (_) {
      return String(value);
    }
  };
  const print = (...args) => log(args.map(show).join(' '));
  Object.defineProperty(globalThis, 'gg', {
    value: Object.freeze({ files: group('files'), views: group('views') }),
    enumerable: false,
  });
  globalThis.console = Object.freeze({
    log: print,
    info: print,
    warn: print,
    error: print,
    debug: print,
  });
  globalThis.performance = Object.freeze({ now: () => now() });
  return show;
})
