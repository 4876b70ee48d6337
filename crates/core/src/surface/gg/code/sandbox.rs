//! The sandbox a run_code program runs in: a QuickJS runtime of its own, on a thread of its
//! own, holding nothing but the language, `gg` (whose every call is handed to the calling
//! thread and answered from there), `console` and a monotonic `performance.now()`. There is no
//! `Date`, no timer, no module loader, no file, network or process access. The runtime's heap
//! and stack are capped (an allocation over the cap is refused; recursion past it throws), and
//! its interrupt handler stops the program when its CPU time or the run's clock time runs out,
//! when its output passes the output limit, or when the caller cancels.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::context::intrinsic;
use rquickjs::{Context, Ctx, Function, Promise, Runtime, Value};

use super::views::{failed, kib};
use crate::config::gg::CodeLimits;
use crate::error::ErrorKind;
use crate::surface::CallContext;
use crate::text::thousands;

/// The prelude installing the program's globals.
const PRELUDE: &str = include_str!("prelude.js");

/// The language a program gets: everything but `Date` and the engine's own `performance`.
type Intrinsics = (
    intrinsic::Eval,
    intrinsic::RegExpCompiler,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::Proxy,
    intrinsic::MapSet,
    intrinsic::TypedArrays,
    intrinsic::Promise,
    intrinsic::WeakRef,
);

/// Why the interrupt handler stopped a program (0: it did not).
const RUNNING: u8 = 0;
const CPU: u8 = 1;
const CLOCK: u8 = 2;
const OUTPUT: u8 = 3;
const CANCELLED: u8 = 4;

/// How a run ended.
pub(super) enum Ended {
    /// The program finished.
    Returned,
    /// It failed: the error text, `kind: message`.
    Failed(String),
}

/// What a run left: its console output, its returned value (shown as text), and how it ended.
pub(super) struct Outcome {
    pub output: String,
    pub returned: Option<String>,
    pub ended: Ended,
}

impl Outcome {
    fn failed(ended: Ended) -> Self {
        Outcome {
            output: String::new(),
            returned: None,
            ended,
        }
    }
}

/// Runs `code` under `limits`; each `gg.*` call it makes is answered by `perform` (the function
/// and its arguments as JSON, to the answer as JSON), here, on the calling thread.
pub(super) fn run(
    code: &str,
    setup: &str,
    limits: &CodeLimits,
    ctx: &CallContext,
    mut perform: impl FnMut(&str, &str) -> String,
) -> Outcome {
    let started = Instant::now();
    let stop = Arc::new(AtomicU8::new(RUNNING));
    let (request_tx, request_rx) = mpsc::channel::<(String, String)>();
    let (answer_tx, answer_rx) = mpsc::channel::<String>();
    std::thread::scope(|scope| {
        let engine_stop = Arc::clone(&stop);
        let engine_ctx = ctx.clone();
        // The thread's stack holds the program's stack (capped below it) and the engine's own.
        let stack = usize::try_from(limits.stack_bytes)
            .unwrap_or(usize::MAX)
            .saturating_add(8 << 20);
        let spawned = std::thread::Builder::new()
            .name("run_code".into())
            .stack_size(stack)
            .spawn_scoped(scope, move || {
                engine(
                    code,
                    setup,
                    limits,
                    engine_ctx,
                    started,
                    engine_stop,
                    request_tx,
                    answer_rx,
                )
            });
        let engine = match spawned {
            Ok(engine) => engine,
            Err(e) => {
                return Outcome::failed(failed(
                    ErrorKind::Io,
                    format!("could not start the program's thread: {e}; try again"),
                ));
            }
        };
        let clock = Duration::from_millis(limits.time_ms);
        while let Ok((function, args)) = request_rx.recv() {
            let answer = if started.elapsed() > clock {
                stop.store(CLOCK, Ordering::Relaxed);
                serde_json::json!({"error": super::failure(ErrorKind::Cancelled, "the run is out of time")}).to_string()
            } else if ctx.is_cancelled() {
                stop.store(CANCELLED, Ordering::Relaxed);
                serde_json::json!({"error": super::failure(ErrorKind::Cancelled, "the run was cancelled")}).to_string()
            } else {
                perform(&function, &args)
            };
            if answer_tx.send(answer).is_err() {
                break;
            }
        }
        engine.join().unwrap_or_else(|_| {
            Outcome::failed(failed(
                ErrorKind::Io,
                "the program's engine stopped unexpectedly; nothing it did after its last gg \
                 call is known; run it again",
            ))
        })
    })
}

/// The program's output so far, bounded.
struct Output {
    text: String,
    limit: usize,
    full: bool,
}

/// The engine thread: builds the runtime, runs the program, reports how it ended.
#[allow(clippy::too_many_arguments)]
fn engine(
    code: &str,
    setup: &str,
    limits: &CodeLimits,
    ctx: CallContext,
    started: Instant,
    stop: Arc<AtomicU8>,
    requests: mpsc::Sender<(String, String)>,
    answers: mpsc::Receiver<String>,
) -> Outcome {
    let runtime = match Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            return Outcome::failed(failed(
                ErrorKind::Io,
                format!("could not start the JavaScript engine: {e}; try again"),
            ));
        }
    };
    runtime.set_memory_limit(usize::try_from(limits.memory_bytes).unwrap_or(usize::MAX));
    runtime.set_max_stack_size(usize::try_from(limits.stack_bytes).unwrap_or(usize::MAX));
    let cpu_start = thread_cpu_time();
    let cpu_limit = Duration::from_millis(limits.cpu_ms);
    let clock = Duration::from_millis(limits.time_ms);
    {
        let stop = Arc::clone(&stop);
        let ctx = ctx.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            if stop.load(Ordering::Relaxed) != RUNNING {
                return true;
            }
            let reason = if ctx.is_cancelled() {
                CANCELLED
            } else if thread_cpu_time().saturating_sub(cpu_start) > cpu_limit {
                CPU
            } else if started.elapsed() > clock {
                CLOCK
            } else {
                return false;
            };
            stop.store(reason, Ordering::Relaxed);
            true
        })));
    }
    let context = match Context::custom::<Intrinsics>(&runtime) {
        Ok(context) => context,
        Err(e) => {
            return Outcome::failed(failed(
                ErrorKind::Io,
                format!("could not start the JavaScript engine: {e}; try again"),
            ));
        }
    };
    let output = Rc::new(RefCell::new(Output {
        text: String::new(),
        limit: usize::try_from(limits.output_bytes).unwrap_or(usize::MAX),
        full: false,
    }));
    let (returned, ended) = context.with(|cx| {
        execute(
            &cx, code, setup, limits, started, &stop, &output, requests, answers,
        )
    });
    let output = std::mem::take(&mut output.borrow_mut().text);
    Outcome {
        output,
        returned,
        ended,
    }
}

/// Installs the globals and runs the program to its end; its returned value and how it ended.
#[allow(clippy::too_many_arguments)]
fn execute<'js>(
    cx: &Ctx<'js>,
    code: &str,
    setup: &str,
    limits: &CodeLimits,
    started: Instant,
    stop: &Arc<AtomicU8>,
    output: &Rc<RefCell<Output>>,
    requests: mpsc::Sender<(String, String)>,
    answers: mpsc::Receiver<String>,
) -> (Option<String>, Ended) {
    let engine_error = |e: rquickjs::Error| {
        (
            None,
            failed(
                ErrorKind::Io,
                format!("the JavaScript engine could not set up the program: {e}; try again"),
            ),
        )
    };
    let host = Function::new(
        cx.clone(),
        move |function: String, args: String| -> String {
            let gone = || {
                serde_json::json!({"error": super::failure(ErrorKind::Cancelled, "the run has ended")})
                .to_string()
            };
            if requests.send((function, args)).is_err() {
                return gone();
            }
            answers.recv().unwrap_or_else(|_| gone())
        },
    );
    let log = {
        let output = Rc::clone(output);
        let stop = Arc::clone(stop);
        Function::new(cx.clone(), move |line: String| {
            let mut out = output.borrow_mut();
            if out.full {
                return;
            }
            let room = out.limit.saturating_sub(out.text.len());
            if line.len() < room {
                out.text.push_str(&line);
                out.text.push('\n');
            } else {
                let cut = floor_char_boundary(&line, room);
                out.text.push_str(&line[..cut]);
                out.full = true;
                stop.store(OUTPUT, Ordering::Relaxed);
            }
        })
    };
    let now = Function::new(cx.clone(), move || started.elapsed().as_secs_f64() * 1000.0);
    let (host, log, now) = match (host, log, now) {
        (Ok(h), Ok(l), Ok(n)) => (h, l, n),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return engine_error(e),
    };
    let prelude: Function = match cx.eval(PRELUDE) {
        Ok(f) => f,
        Err(e) => return engine_error(e),
    };
    let show: Function = match prelude.call((setup, host, log, now)) {
        Ok(f) => f,
        Err(e) => return engine_error(e),
    };
    // The program is the body of an async function, starting on line 1 so that the lines an
    // error names are the program's own.
    let wrapped = format!("(async () => {{{code}\n}})()");
    let mut options = EvalOptions::default();
    options.global = true;
    options.strict = false;
    options.backtrace_barrier = true;
    options.filename = Some("program".to_string());
    let settled: rquickjs::Result<Value> = cx
        .eval_with_options::<Promise, _>(wrapped, options)
        .and_then(|promise| promise.finish::<Value>());
    let value = match settled {
        Ok(value) => value,
        Err(err) => return (None, ending(cx, err, stop, limits, output)),
    };
    if stop.load(Ordering::Relaxed) != RUNNING {
        return (None, stopped(stop, limits, output));
    }
    if value.is_undefined() {
        return (None, Ended::Returned);
    }
    let shown: String = match show.call((value,)) {
        Ok(text) => text,
        Err(err) => return (None, ending(cx, err, stop, limits, output)),
    };
    let room = {
        let out = output.borrow();
        out.limit.saturating_sub(out.text.len())
    };
    if shown.len() > room {
        let cut = floor_char_boundary(&shown, room);
        let message = format!(
            "the returned value is {} bytes, and with the console output it is over the output \
             limit of {} (output_limit_kib in [code]); the first {} bytes of it are below; \
             return less (a count, the paths that matter), or open a view with \
             gg.views.openFile for what the model should read",
            thousands(shown.len() as u64),
            kib(limits.output_bytes),
            thousands(cut as u64)
        );
        return (
            Some(shown[..cut].to_string()),
            failed(ErrorKind::TooLarge, message),
        );
    }
    (Some(shown), Ended::Returned)
}

/// How a program that did not settle with a value ended.
fn ending(
    cx: &Ctx<'_>,
    err: rquickjs::Error,
    stop: &AtomicU8,
    limits: &CodeLimits,
    output: &Rc<RefCell<Output>>,
) -> Ended {
    if stop.load(Ordering::Relaxed) != RUNNING {
        return stopped(stop, limits, output);
    }
    match err {
        rquickjs::Error::Exception => thrown(&cx.catch(), limits),
        rquickjs::Error::WouldBlock => failed(
            ErrorKind::InvalidArgument,
            "the program is waiting for a promise that nothing will settle (there are no \
             timers, events or background work here); await only gg calls and promises your \
             program settles itself",
        ),
        other => failed(
            ErrorKind::InvalidArgument,
            format!("the program could not run: {other}"),
        ),
    }
}

/// The failure of a program the interrupt handler stopped.
fn stopped(stop: &AtomicU8, limits: &CodeLimits, output: &Rc<RefCell<Output>>) -> Ended {
    let kept = "its output and the views it opened before are below";
    match stop.load(Ordering::Relaxed) {
        CPU => failed(
            ErrorKind::Limit,
            format!(
                "the program used its {} ms of CPU time (cpu_limit_ms in [code]) and was \
                 stopped; {kept}; make it do less in one run (fewer files, a narrower search), \
                 or look for a loop that does not end",
                thousands(limits.cpu_ms)
            ),
        ),
        CLOCK => failed(
            ErrorKind::Limit,
            format!(
                "the run took its {} ms (time_limit_ms in [code], its gg calls included) and was \
                 stopped; {kept}; make it do less in one run",
                thousands(limits.time_ms)
            ),
        ),
        OUTPUT => failed(
            ErrorKind::Limit,
            format!(
                "the program's console output reached the output limit of {} (output_limit_kib \
                 in [code]) after {} bytes and the program was stopped; the output up to the \
                 limit is below; print less (counts, the lines that matter), or open a view \
                 with gg.views.openFile for what the model should read",
                kib(limits.output_bytes),
                thousands(output.borrow().text.len() as u64)
            ),
        ),
        _ => failed(
            ErrorKind::Cancelled,
            format!("the caller cancelled the run and the program was stopped; {kept}"),
        ),
    }
}

/// The failure of a program that threw `value` and did not catch it.
fn thrown(value: &Value<'_>, limits: &CodeLimits) -> Ended {
    let field = |name: &str| -> Option<String> {
        value
            .as_object()
            .and_then(|o| o.get::<_, Option<String>>(name).ok().flatten())
    };
    let message = field("message").unwrap_or_else(|| describe_value(value));
    let name = field("name").unwrap_or_else(|| "a value".to_string());
    let at = field("stack")
        .and_then(|stack| program_line(&stack))
        .map(|line| format!(" at line {line}"))
        .unwrap_or_default();
    if field("kind").is_some() && name == "GgError" {
        // A gg call's error the program did not catch: the call's own text.
        return Ended::Failed(format!("{message} (uncaught{at})"));
    }
    if message.contains("out of memory") {
        return failed(
            ErrorKind::Limit,
            format!(
                "the program asked for more memory than its {} (memory_limit_mib in [code]){at}, \
                 and the allocation was refused; its output and the views it opened before are \
                 below; hold less at once (read files one by one, keep only what you need)",
                mib(limits.memory_bytes)
            ),
        );
    }
    if message.contains("stack overflow") || message.contains("call stack") {
        return failed(
            ErrorKind::Limit,
            format!(
                "the program recursed deeper than its {} of stack (stack_limit_kib in \
                 [code]){at}; its output and the views it opened before are below; use a loop, \
                 or recurse less deeply",
                kib(limits.stack_bytes)
            ),
        );
    }
    let what = if name == "SyntaxError" {
        "the program is not valid JavaScript"
    } else {
        "the program threw and did not catch it"
    };
    failed(
        ErrorKind::InvalidArgument,
        format!("{what}: {name}: {message}{at}; fix the program and run it again"),
    )
}

/// A thrown value that is not an error object, as text.
fn describe_value(value: &Value<'_>) -> String {
    if let Some(s) = value.as_string().and_then(|s| s.to_string().ok()) {
        return s;
    }
    if let Some(n) = value.as_number() {
        return n.to_string();
    }
    format!("a {}", value.type_name())
}

/// The first line of the program a stack trace names (`program:3:7`).
fn program_line(stack: &str) -> Option<u64> {
    let at = stack.find("program:")?;
    let digits: String = stack[at + "program:".len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The largest char boundary of `text` at most `at`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

/// The CPU time the calling thread has used.
fn thread_cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_line_is_read_from_a_stack() {
        assert_eq!(
            program_line("    at <anonymous> (program:12:5)\n"),
            Some(12)
        );
        assert_eq!(program_line("    at f (native)\n"), None);
    }
}
