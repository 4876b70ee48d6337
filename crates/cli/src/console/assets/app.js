// The console page: the configuration editor (every change is validated by the server, with
// the same code `fsgate serve --config` runs) and the call log, polled from the server.
'use strict';

const $ = (id) => document.getElementById(id);
const state = { meta: null, profile: 'gg', mode: 'form', path: '', callLog: null, seq: 0, timer: null };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? '' : v);
  }
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const answer = await response.json();
  return { status: response.status, answer };
}

// A key as the validator writes it: bare when TOML allows, quoted otherwise.
function keyPart(name) {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
}

// ---- the gg form ----

function buildForm(meta) {
  const groups = $('groups');
  groups.replaceChildren();
  groups.dataset.key = 'capabilities';
  for (const group of meta.groups) {
    const fs = el('fieldset', { class: 'group', 'data-group': group.name },
      el('legend', {}, group.name, ' ', el('span', { class: 'hint' }, 'capabilities')),
      el('p', { class: 'hint' }, group.description));
    for (const cap of group.capabilities) {
      const id = 'cap-' + cap.name;
      const row = el('div', { class: 'cap row', 'data-key': 'capabilities.' + cap.name },
        el('label', { for: id }, el('input', { type: 'checkbox', id, 'data-cap': cap.name, onchange: changed }), ' ', cap.name),
        el('span', { class: 'tools' }, ...cap.tools.map((t) => el('code', {}, t))),
        el('span', { class: 'hint' }, cap.description));
      fs.append(row);
    }
    groups.append(fs);
  }
  const modes = $('modes');
  modes.replaceChildren();
  for (const mode of meta.modes) {
    modes.append(el('div', { class: 'row' },
      el('label', {}, el('input', { type: 'radio', name: 'read-mode', value: mode.name, onchange: changed }), ' ', mode.name),
      el('span', { class: 'hint' }, mode.description)));
  }
  $('tool-names').replaceChildren(...meta.tools.map((t) => el('code', {}, t + ' ')));
}

function addAgentRow(name, allow) {
  const row = el('tr', { class: 'agent' });
  const nameInput = el('input', { class: 'agent-name', 'aria-label': 'agent name', value: name, oninput: agentRenamed });
  const allowInput = el('input', { class: 'agent-allow', 'aria-label': 'allowlist', value: allow, oninput: changed });
  row.append(
    el('td', {}, nameInput),
    el('td', {}, allowInput),
    el('td', {}, el('button', { type: 'button', class: 'remove-agent', onclick: () => { row.remove(); changed(); } }, 'Remove')));
  $('agent-rows').append(row);
  setAgentKey(row);
  return row;
}

function setAgentKey(row) {
  const name = row.querySelector('.agent-name').value;
  row.dataset.key = 'agents.' + keyPart(name);
}

function agentRenamed(event) {
  setAgentKey(event.target.closest('tr'));
  changed();
}

function fillForm(form) {
  for (const [name, cap] of Object.entries(form.capabilities)) {
    const box = document.querySelector(`input[data-cap="${name}"]`);
    if (box) box.checked = !!cap.enabled;
  }
  const read = form.capabilities['read-file'] || {};
  const modes = $('modes');
  // A loaded mode gg does not know is shown as it is, so the validator can name it.
  if (read.implementation && !state.meta.modes.some((m) => m.name === read.implementation)) {
    modes.querySelector('.unknown-mode')?.remove();
    modes.append(el('div', { class: 'row unknown-mode' },
      el('label', {}, el('input', { type: 'radio', name: 'read-mode', value: read.implementation, onchange: changed }), ' ', read.implementation)));
  }
  for (const radio of document.querySelectorAll('input[name="read-mode"]')) {
    radio.checked = radio.value === read.implementation;
  }
  $('line-cap').value = read.lineCap ?? '';
  $('agent-rows').replaceChildren();
  for (const agent of form.agents) addAgentRow(agent.name, agent.allow);
  $('vision').checked = !!form.vision;
  // Not on the page, but kept: saving the form must not drop them.
  state.nonAccessibleGlobs = form.nonAccessibleGlobs || [];
  state.otherParams = read.otherParams || {};
  state.arm = form.arm ?? null;
  state.code = form.code || {};
}

function readForm() {
  const capabilities = {};
  for (const box of document.querySelectorAll('input[data-cap]')) {
    capabilities[box.dataset.cap] = { enabled: box.checked };
  }
  const mode = document.querySelector('input[name="read-mode"]:checked');
  capabilities['read-file'].implementation = mode ? mode.value : 'default-cap';
  capabilities['read-file'].lineCap = $('line-cap').value;
  capabilities['read-file'].otherParams = state.otherParams || {};
  const agents = [...document.querySelectorAll('#agent-rows tr')].map((row) => ({
    name: row.querySelector('.agent-name').value,
    allow: row.querySelector('.agent-allow').value,
  }));
  return {
    capabilities,
    agents,
    vision: $('vision').checked,
    nonAccessibleGlobs: state.nonAccessibleGlobs || [],
    arm: state.arm ?? null,
    code: state.code || {},
  };
}

// ---- modes: the gg form, or the file's text ----

function setMode(mode) {
  state.mode = mode;
  const form = mode === 'form';
  $('gg-form').hidden = !form;
  $('text-editor').hidden = form;
  $('preview-box').hidden = !form;
  $('toggle-text').hidden = state.profile !== 'gg';
  $('toggle-text').textContent = form ? 'Edit as text' : 'Edit as form';
}

function request() {
  return state.mode === 'form'
    ? { profile: state.profile, form: readForm() }
    : { profile: state.profile, text: $('config-text').value };
}

function serveCommand() {
  const log = state.callLog ? ` --call-log ${state.callLog}` : ' --call-log FILE';
  $('serve-command').textContent = `fsgate serve --profile ${state.profile} --config ${state.path}${log}`;
}

// ---- validation ----

function changed() {
  $('save-status').textContent = '';
  $('save-status').className = '';
  clearTimeout(state.timer);
  state.timer = setTimeout(validate, 120);
}

async function validate() {
  const seq = ++state.seq;
  const { answer } = await api('/api/validate', request());
  if (seq !== state.seq) return; // a newer edit is on its way
  show(answer);
}

function show(answer) {
  if (answer.error) {
    $('problems').className = '';
    $('problems').replaceChildren(el('strong', {}, answer.error));
    return;
  }
  $('preview').textContent = answer.text;
  if (state.mode === 'form') $('config-text').value = answer.text;
  for (const node of document.querySelectorAll('.invalid')) node.classList.remove('invalid');
  for (const node of document.querySelectorAll('.field-problem')) node.remove();
  const box = $('problems');
  if (answer.ok) {
    box.className = 'ok';
    box.replaceChildren(el('span', {}, `Valid: ${state.profile} accepts every value.`));
    $('save').disabled = false;
    return;
  }
  box.className = '';
  const list = el('ul', { id: 'problem-list' });
  for (const p of answer.problems) {
    list.append(el('li', { class: 'problem', 'data-key': p.key }, p.key ? el('code', {}, p.key) : '', p.key ? ': ' : '', p.message));
    markField(p);
  }
  box.replaceChildren(el('strong', { id: 'problem-summary' }, answer.summary), list);
  $('save').disabled = true;
}

// Marks the form field a problem is about: the one whose key is the longest prefix of its key.
function markField(problem) {
  if (state.mode !== 'form' || !problem.key) return;
  let best = null;
  for (const node of document.querySelectorAll('#gg-form [data-key], #groups')) {
    const key = node.dataset.key;
    if ((problem.key === key || problem.key.startsWith(key + '.')) && (!best || key.length > best.dataset.key.length)) {
      best = node;
    }
  }
  if (!best) return;
  best.classList.add('invalid');
  const note = el('div', { class: 'field-problem' }, problem.message);
  if (best.tagName === 'TR') best.lastElementChild.append(note);
  else best.append(note);
}

async function save() {
  const status = $('save-status');
  status.textContent = 'Saving…';
  status.className = '';
  const { status: code, answer } = await api('/api/save', request());
  if (answer.saved) {
    status.textContent = `Saved ${answer.path}`;
    status.className = 'saved';
    $('config-state').textContent = '';
    show(answer);
  } else {
    status.textContent = answer.error ? `Not saved: ${answer.error}` : `Not saved: ${answer.summary || code}`;
    status.className = 'refused';
    if (!answer.error) show(answer);
  }
}

// ---- the call log ----

const log = { offset: 0, calls: 0, errors: 0, bytes: 0, tokens: 0 };

function fmtArgs(args) {
  if (args === null || args === undefined) return '';
  const text = JSON.stringify(args);
  return text.length > 160 ? text.slice(0, 160) + '…' : text;
}

function addCall(entry) {
  const body = document.querySelector('#call-log tbody');
  if (entry.unreadable !== undefined) {
    body.append(el('tr', { class: 'unreadable' }, el('td', { colspan: 7 }, 'unreadable line: ' + entry.unreadable)));
    return;
  }
  const time = (entry.timestamp || '').replace('T', ' ').replace('Z', '');
  const outcome = entry.outcome + (entry.code ? ` (${entry.code})` : '');
  body.append(el('tr', { class: 'call ' + entry.outcome, 'data-tool': entry.tool },
    el('td', {}, time),
    el('td', { class: 'tool' }, el('code', {}, entry.tool)),
    el('td', { class: 'args', title: JSON.stringify(entry.arguments) }, fmtArgs(entry.arguments)),
    el('td', { class: 'num duration' }, `${Number(entry.duration_ms).toFixed(1)} ms`),
    el('td', { class: 'outcome' }, outcome),
    el('td', { class: 'num bytes' }, entry.bytes),
    el('td', { class: 'num tokens' }, '~' + entry.est_tokens)));
  log.calls += 1;
  if (entry.outcome !== 'ok') log.errors += 1;
  log.bytes += entry.bytes || 0;
  log.tokens += entry.est_tokens || 0;
}

async function pollLog() {
  try {
    const { answer } = await api(`/api/log?offset=${log.offset}`);
    if (!answer.path) {
      $('log-source').textContent = 'No call log: start the console with --call-log FILE, and the server with fsgate serve --call-log FILE.';
      return;
    }
    $('log-source').textContent = `Following ${answer.path}, written by fsgate serve --call-log.`;
    if (answer.reset) {
      document.querySelector('#call-log tbody').replaceChildren();
      Object.assign(log, { calls: 0, errors: 0, bytes: 0, tokens: 0 });
    }
    for (const entry of answer.entries) addCall(entry);
    log.offset = answer.offset;
    $('log-totals').textContent = `${log.calls} calls, ${log.errors} failed, ${log.bytes} bytes returned, ~${log.tokens} tokens (estimated)`;
  } catch (e) {
    $('log-source').textContent = `The console is not answering (${e.message}).`;
  }
  setTimeout(pollLog, 1000);
}

// ---- start ----

async function start() {
  const { answer } = await api('/api/config');
  state.meta = answer.gg;
  state.profile = answer.profile;
  state.path = answer.path;
  state.callLog = answer.callLog;
  $('config-path').textContent = answer.path;
  $('config-state').textContent = answer.exists ? '' : '(no file yet: saving creates it)';
  const profile = $('profile');
  profile.replaceChildren(...answer.profiles.map((p) => el('option', { value: p }, p)));
  profile.value = answer.profile;
  profile.addEventListener('change', async () => {
    const text = $('config-text').value;
    state.profile = profile.value;
    serveCommand();
    if (state.profile === 'gg') {
      const { answer: checked } = await api('/api/validate', { profile: 'gg', text });
      if (checked.form) fillForm(checked.form);
      setMode(checked.form ? 'form' : 'text');
    } else {
      setMode('text');
    }
    profileHint();
    changed();
  });
  buildForm(answer.gg);
  $('config-text').value = answer.text;
  $('config-text').addEventListener('input', changed);
  if (answer.form) fillForm(answer.form);
  setMode(answer.profile === 'gg' && answer.form ? 'form' : 'text');
  profileHint();
  $('line-cap').addEventListener('input', changed);
  $('vision').addEventListener('change', changed);
  $('add-agent').addEventListener('click', () => {
    addAgentRow('', '').querySelector('.agent-name').focus();
    changed();
  });
  $('toggle-text').addEventListener('click', async () => {
    if (state.mode === 'form') {
      setMode('text');
    } else {
      const { answer: checked } = await api('/api/validate', { profile: 'gg', text: $('config-text').value });
      if (!checked.form) return show(checked);
      fillForm(checked.form);
      setMode('form');
    }
    changed();
  });
  $('save').addEventListener('click', save);
  serveCommand();
  show(answer);
  pollLog();
}

function profileHint() {
  const hints = {
    gg: 'TOML: capabilities, read mode, agents, model',
    coder: "the coder worker's YAML",
    qwen: "Qwen Code's settings.json",
    picoclaw: "PicoClaw's JSON configuration",
    sgpt: 'TOML: read budget, lores, exec_shell, agent',
  };
  $('profile-hint').textContent = `${hints[state.profile] || ''}; validated as ${state.profile} validates it`;
  $('text-label').textContent = `File text (${state.profile})`;
}

start();
