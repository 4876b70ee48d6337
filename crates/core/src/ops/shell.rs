//! Running a shell command with a timeout, a process-group kill, and an output cap.
//!
//! This is the one place fsgate starts a process: a surface describes what to run as a
//! [`Program`] and hands it to [`run`] (clippy bans `std::process::Command` everywhere else,
//! and a test checks that no other module names it).
//!
//! The process runs in a process group of its own, so a timeout or a cancellation kills
//! everything it started (a `sleep` grandchild included), not just the shell. Output is read
//! from non-blocking pipes by the calling thread, which also watches the deadline and the
//! cancellation flag; no thread is left behind when a background process keeps the pipe open.
//!
//! Output is kept as a head and a tail in memory, and in full (up to a limit) in an anonymous
//! temporary file once it outgrows the head, so a flood costs bounded memory and the caller can
//! still save every byte.

use std::ffi::OsString;
use std::io::{self, Read, Seek, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
#[allow(clippy::disallowed_types)] // the one module that starts processes
use std::process::Command;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};

use crate::access::OpenFile;
use rustix::process::{Pid, Signal, kill_process_group};

/// How long output is still read after the process exited, for grandchildren that still hold
/// the pipe (a background job): their later output is not waited for.
const LINGER: Duration = Duration::from_millis(250);
/// The most buffers read from one pipe before the deadline and the cancellation flag are
/// looked at again.
const MAX_TURNS: usize = 16;
/// The longest pause between two looks at the pipes, the clock and the cancellation flag.
const MAX_NAP: Duration = Duration::from_millis(20);

/// A program to start: what, with which arguments, where, and with which extra environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The program, a path or a name looked up in `PATH`.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Its working directory. By default (`None`) the server's own.
    pub cwd: Option<PathBuf>,
    /// Variables added to the environment it inherits.
    pub env: Vec<(OsString, OsString)>,
}

impl Program {
    /// `program` with no arguments, in the server's working directory.
    pub fn new(program: impl Into<OsString>) -> Self {
        Program {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
        }
    }

    /// `script` run by `sh -c`.
    pub fn shell(script: impl Into<OsString>) -> Self {
        Program::new("sh").arg("-c").arg(script)
    }

    /// The same program with `arg` after its arguments.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// The same program with `args` after its arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The same program, run in `dir`.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// The same program with `key=value` in its environment.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    #[allow(clippy::disallowed_types, clippy::disallowed_methods)] // the one place
    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }
}

/// What to run.
pub struct Job {
    /// The program: what, arguments, working directory, environment. Its standard streams and
    /// process group are set by [`run`].
    pub command: Program,
    /// Bytes for standard input (closed after them); `None` gives the process no input.
    pub stdin: Option<Vec<u8>>,
    /// Send standard error into the same pipe as standard output, interleaved as written.
    pub combine: bool,
    /// When to kill the process group.
    pub timeout: Duration,
    /// Bytes kept in memory for the head and, separately, for the tail of each stream.
    pub keep: usize,
    /// The most bytes of a stream kept in its temporary file.
    pub spool_limit: u64,
}

/// How the process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// It exited with this code.
    Exited(i32),
    /// A signal it did not expect ended it.
    Signalled(i32),
    /// It ran past the timeout; its process group was killed.
    TimedOut,
    /// The caller cancelled; its process group was killed.
    Cancelled,
}

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// How it ended.
    pub end: End,
    /// Standard output (with standard error when combined).
    pub stdout: Captured,
    /// Standard error (empty when combined).
    pub stderr: Captured,
    /// How long it ran.
    pub elapsed: Duration,
    /// Whether a process it started still held the output open when reading stopped.
    pub lingering: bool,
}

/// One output stream: its head and tail in memory, every byte (up to a limit) in a spool file.
#[derive(Debug)]
pub struct Captured {
    keep: usize,
    spool_limit: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
    chars: u64,
    spool: Option<OpenFile>,
    spooled: u64,
    spool_error: Option<String>,
}

impl Captured {
    /// An empty stream keeping `keep` bytes of head and of tail and up to `spool_limit` bytes
    /// in its spool.
    pub fn new(keep: usize, spool_limit: u64) -> Self {
        Captured {
            keep: keep.max(1),
            spool_limit,
            head: Vec::new(),
            tail: Vec::new(),
            total: 0,
            chars: 0,
            spool: None,
            spooled: 0,
            spool_error: None,
        }
    }

    /// Appends `bytes`.
    pub fn push(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.total += bytes.len() as u64;
        // UTF-8 characters are the bytes that do not continue a sequence.
        self.chars += bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u64;
        let room = self.keep.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * self.keep {
            let cut = self.tail.len() - self.keep;
            self.tail.drain(..cut);
        }
        if self.total > self.keep as u64 {
            self.spool_bytes(bytes);
        }
    }

    fn spool_bytes(&mut self, bytes: &[u8]) {
        if self.spool_error.is_some() || self.spooled >= self.spool_limit {
            return;
        }
        if self.spool.is_none() {
            // Everything before these bytes is still in the head.
            let earlier = &self.head[..(self.total as usize - bytes.len()).min(self.head.len())];
            let earlier = earlier.to_vec();
            match tempfile::tempfile() {
                Ok(file) => self.spool = Some(file),
                Err(e) => {
                    self.spool_error = Some(format!("no temporary file for the output: {e}"));
                    return;
                }
            }
            self.write_spool(&earlier);
        }
        self.write_spool(bytes);
    }

    fn write_spool(&mut self, bytes: &[u8]) {
        let room = self.spool_limit.saturating_sub(self.spooled);
        let take = usize::try_from(room).unwrap_or(usize::MAX).min(bytes.len());
        if take == 0 {
            return;
        }
        if let Some(file) = &mut self.spool {
            match file.write_all(&bytes[..take]) {
                Ok(()) => self.spooled += take as u64,
                Err(e) => self.spool_error = Some(format!("writing the output aside failed: {e}")),
            }
        }
    }

    /// Bytes received.
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// Characters received (UTF-8 sequences; each invalid byte counts as one).
    pub fn total_chars(&self) -> u64 {
        self.chars
    }

    /// Whether [`Captured::head`] holds every byte.
    pub fn is_whole(&self) -> bool {
        self.total <= self.keep as u64
    }

    /// The first bytes (all of them when [`Captured::is_whole`]).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The last bytes (at most `keep` of them; all of them when whole).
    pub fn tail(&self) -> &[u8] {
        let from = self.tail.len().saturating_sub(self.keep);
        &self.tail[from..]
    }

    /// Bytes of the whole output that [`Captured::full`] cannot give back (over the spool
    /// limit, or lost with the spool), and why.
    pub fn missing(&self) -> Option<(u64, String)> {
        if self.is_whole() {
            return None;
        }
        let kept = if self.spool.is_some() {
            self.spooled
        } else {
            self.head.len() as u64
        };
        if kept >= self.total {
            return None;
        }
        let why = match &self.spool_error {
            Some(e) => e.clone(),
            None => format!("over the limit of {} bytes kept", self.spool_limit),
        };
        Some((self.total - kept, why))
    }

    /// A reader of the whole output (up to the spool limit).
    pub fn full(&mut self) -> io::Result<Box<dyn Read + '_>> {
        if self.is_whole() {
            return Ok(Box::new(&self.head[..]));
        }
        match &mut self.spool {
            Some(file) => {
                file.flush()?;
                file.rewind()?;
                Ok(Box::new(file.take(self.spooled)))
            }
            None => Ok(Box::new(&self.head[..])),
        }
    }
}

/// Runs `job`, returning when the process and the output are done, the timeout passed, or
/// `cancelled` says so. An error means the process could not be started.
pub fn run(job: Job, cancelled: &dyn Fn() -> bool) -> io::Result<Outcome> {
    let Job {
        command,
        stdin,
        combine,
        timeout,
        keep,
        spool_limit,
    } = job;
    let mut command = command.command();
    command.process_group(0);
    command.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut readers: Vec<(Box<dyn Read>, bool)> = Vec::new();
    let mut child = if combine {
        let (reader, writer) = io::pipe()?;
        command.stdout(writer.try_clone()?);
        command.stderr(writer);
        let child = command.spawn();
        // The command holds the pipe's write ends; they must close for the end of file.
        drop(command);
        let child = child?;
        set_nonblocking(&reader)?;
        readers.push((Box::new(reader), true));
        child
    } else {
        command.stdout(Stdio::piped());
        command.stderr(Stdio::piped());
        let mut child = command.spawn()?;
        drop(command);
        if let Some(out) = child.stdout.take() {
            set_nonblocking(&out)?;
            readers.push((Box::new(out), true));
        }
        if let Some(err) = child.stderr.take() {
            set_nonblocking(&err)?;
            readers.push((Box::new(err), false));
        }
        child
    };
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A child that never reads its input must not stall the loop: a thread writes it,
        // and ends when the child closes its end (EPIPE) or exits.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let start = Instant::now();
    let mut stdout = Captured::new(keep, spool_limit);
    let mut stderr = Captured::new(keep, spool_limit);
    let mut buf = vec![0u8; 64 * 1024];
    let mut end: Option<End> = None;
    let mut exited_at: Option<Instant> = None;
    let mut nap = Duration::from_millis(1);
    loop {
        let mut progressed = false;
        readers.retain_mut(|(reader, is_stdout)| {
            // A flood gets a bounded turn, so the clock and the cancellation flag are looked at.
            let mut turns = 0;
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break false,
                    Ok(n) => {
                        progressed = true;
                        let sink = if *is_stdout { &mut stdout } else { &mut stderr };
                        sink.push(&buf[..n]);
                        turns += 1;
                        if n < buf.len() || turns >= MAX_TURNS {
                            break true;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break true,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break false,
                }
            }
        });
        if exited_at.is_none() {
            if let Some(status) = child.try_wait()? {
                end = Some(match (status.code(), status.signal()) {
                    (Some(code), _) => End::Exited(code),
                    (None, Some(signal)) => End::Signalled(signal),
                    (None, None) => End::Exited(-1),
                });
                exited_at = Some(Instant::now());
            } else if cancelled() {
                end = Some(End::Cancelled);
                exited_at = Some(kill(&mut child));
            } else if start.elapsed() >= timeout {
                end = Some(End::TimedOut);
                exited_at = Some(kill(&mut child));
            }
        }
        if let Some(at) = exited_at
            && (readers.is_empty() || at.elapsed() >= LINGER)
        {
            break;
        }
        if progressed {
            nap = Duration::from_millis(1);
        } else {
            std::thread::sleep(nap);
            nap = (nap * 2).min(MAX_NAP);
        }
    }
    Ok(Outcome {
        end: end.unwrap_or(End::Exited(-1)),
        stdout,
        stderr,
        elapsed: start.elapsed(),
        lingering: !readers.is_empty(),
    })
}

/// Kills the child's process group and reaps the child; returns when that was done.
fn kill(child: &mut Child) -> Instant {
    if let Some(pid) = Pid::from_raw(child.id() as i32) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
    Instant::now()
}

fn set_nonblocking(fd: &impl std::os::fd::AsFd) -> io::Result<()> {
    let flags = fcntl_getfl(fd)?;
    fcntl_setfl(fd, flags | OFlags::NONBLOCK)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Outcome {
        run(
            Job {
                command: Program::shell(script),
                stdin: None,
                combine: true,
                timeout,
                keep: 1024,
                spool_limit: 1 << 20,
            },
            &|| false,
        )
        .unwrap()
    }

    #[test]
    fn combined_output_and_exit_code() {
        let out = sh("echo out; echo err >&2; exit 3", Duration::from_secs(10));
        assert_eq!(out.end, End::Exited(3));
        assert_eq!(out.stdout.head(), b"out\nerr\n");
        assert!(out.stdout.is_whole());
    }

    #[test]
    fn a_flood_keeps_head_tail_and_spool() {
        let mut out = sh("seq 1 100000", Duration::from_secs(10));
        assert_eq!(out.end, End::Exited(0));
        assert!(!out.stdout.is_whole());
        assert!(out.stdout.head().starts_with(b"1\n2\n"));
        assert!(out.stdout.tail().ends_with(b"99999\n100000\n"));
        let mut all = Vec::new();
        out.stdout.full().unwrap().read_to_end(&mut all).unwrap();
        assert_eq!(all.len() as u64, out.stdout.total_bytes());
        assert!(all.starts_with(b"1\n2\n3\n"));
        assert!(all.ends_with(b"\n100000\n"));
        assert!(out.stdout.missing().is_none());
    }

    #[test]
    fn the_spool_limit_is_reported() {
        let out = run(
            Job {
                command: Program::shell("seq 1 10000"),
                stdin: None,
                combine: true,
                timeout: Duration::from_secs(10),
                keep: 100,
                spool_limit: 1000,
            },
            &|| false,
        )
        .unwrap();
        let (missing, why) = out.stdout.missing().unwrap();
        assert_eq!(missing, out.stdout.total_bytes() - 1000);
        assert!(why.contains("1000 bytes"), "{why}");
    }

    #[test]
    fn a_timeout_kills_the_group() {
        let out = sh("sleep 30 & sleep 30", Duration::from_millis(300));
        assert_eq!(out.end, End::TimedOut);
        assert!(out.elapsed < Duration::from_secs(5));
    }

    #[test]
    fn stdin_and_separate_streams() {
        let out = run(
            Job {
                command: Program::shell("cat; echo log >&2"),
                stdin: Some(b"hello".to_vec()),
                combine: false,
                timeout: Duration::from_secs(10),
                keep: 1024,
                spool_limit: 1024,
            },
            &|| false,
        )
        .unwrap();
        assert_eq!(out.stdout.head(), b"hello");
        assert_eq!(out.stderr.head(), b"log\n");
    }
}
