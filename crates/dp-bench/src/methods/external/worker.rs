//! One outside learner's worker process: started once from an argv (never through a shell),
//! then one newline-delimited JSON request and one response line at a time, each within a
//! timeout. A worker that overruns is sent SIGTERM, then SIGKILL after a grace period; its
//! stderr is drained on its own thread (a full pipe would block it) and the tail kept for
//! failure reports.
//!
//! What it starts ends with it: the worker leads its own process group, and stopping it
//! (a timeout, a crash, the end of the run) signals the group and every descendant still
//! under it, including one that left the group with `setsid`. On Linux the worker also gets
//! SIGKILL when dp-bench dies, by any signal (`PR_SET_PDEATHSIG`), and on dp-bench's own
//! SIGINT, SIGTERM or SIGHUP every live worker's group and descendants get SIGKILL before it
//! exits ([`end_workers_on_signals`]). A descendant that detached itself completely (a double
//! fork) while dp-bench is killed by SIGKILL is out of reach: a config that runs outside
//! programs is code (docs/external-learners.md).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a worker may take to exit after SIGTERM (or after its stdin closes) before SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// Lines of stderr kept for failure reports.
const TAIL_LINES: usize = 30;

/// Longest response line read (32 MiB): θ of a million coordinates at full precision fits;
/// a longer line stops the worker and fails the cell, so memory stays bounded.
pub const MAX_LINE: usize = 32 << 20;

/// How a timed-out request's failure begins: an audit tells it from the learner's own
/// failures by it, since whether a run times out depends on the machine.
pub const TIMED_OUT: &str = "no response within timeout_seconds";

/// Why a request got no response line. Each leaves the worker unusable: it is stopped and a
/// new one started for the next cell.
#[derive(Debug)]
pub enum Failure {
    /// No line within the timeout (the worker was killed).
    Timeout(Duration),
    /// The worker closed its stdout or exited.
    Exited(String),
    /// Writing the request failed (the worker is gone).
    Io(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Timeout(t) => write!(
                f,
                "{TIMED_OUT} = {} (worker stopped: SIGTERM, and SIGKILL if still running {} s \
                 later)",
                crate::quoting::number(t.as_secs_f64()),
                GRACE.as_secs()
            ),
            Failure::Exited(why) => write!(f, "the worker exited before responding ({why})"),
            Failure::Io(e) => write!(f, "cannot send the request to the worker: {e}"),
        }
    }
}

/// The pid of every worker started and not yet stopped (each leads its process group), for
/// [`end_workers_on_signals`].
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Installs dp-bench's handler of SIGINT, SIGTERM and SIGHUP: SIGKILL to every live worker's
/// process group and descendants, then exit with 128 + the signal's number (as the shell
/// reports a process that signal ended). Without it a worker would die with dp-bench
/// (`PR_SET_PDEATHSIG`) but whatever it started would outlive the run. Cells are written
/// whole or not at all, so a run stopped this way resumes.
pub fn end_workers_on_signals() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            // Held until exit: no worker starts or stops in between.
            let live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
            for &pid in live.iter() {
                signal_all(pid, &descendants(pid), Signal::Kill);
            }
            std::process::exit(128 + sig);
        }
    });
    Ok(())
}

fn forget(pid: u32) {
    LIVE.lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|&p| p != pid);
}

/// A running worker process.
pub struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    tail: Arc<Mutex<VecDeque<String>>>,
    stderr_done: Receiver<()>,
}

impl Worker {
    /// Starts `argv[0]` with the rest as arguments. Numeric libraries are held to one thread:
    /// the harness runs one worker per rayon thread already.
    pub fn start(argv: &[String]) -> anyhow::Result<Worker> {
        let (program, args) = argv.split_first().expect("command checked non-empty");
        let mut command = Command::new(program);
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
            #[cfg(target_os = "linux")]
            // SAFETY: prctl(2) is async-signal-safe, and the closure touches nothing else.
            unsafe {
                command.pre_exec(|| {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        // No path to the raw data or the processed cache: a worker gets the arrays it is
        // sent, nothing else this project knows of.
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("DPBENCH_") {
                command.env_remove(&key);
            }
        }
        let mut child = command
            .args(args)
            .env("OMP_NUM_THREADS", "1")
            .env("OPENBLAS_NUM_THREADS", "1")
            .env("MKL_NUM_THREADS", "1")
            .env("PYTHONHASHSEED", "0")
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot start {argv:?}: {e}"))?;
        LIVE.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(child.id());
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(line) = read_line(&mut r) {
                let last = line.is_err();
                if tx.send(line).is_err() || last {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        let (done, stderr_done) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stderr);
            let mut buf = Vec::new();
            while matches!(r.read_until(b'\n', &mut buf), Ok(k) if k > 0) {
                let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                let mut t = keep.lock().unwrap_or_else(|p| p.into_inner());
                if t.len() == TAIL_LINES {
                    t.pop_front();
                }
                t.push_back(line);
                buf.clear();
            }
            let _ = done.send(());
        });
        Ok(Worker {
            stdin: child.stdin.take(),
            child,
            lines,
            tail,
            stderr_done,
        })
    }

    /// Sends one request line and waits up to `timeout` for one response line. On any
    /// failure the worker has been stopped (killed on a timeout) and must be dropped.
    pub fn call(&mut self, request: &str, timeout: Duration) -> Result<String, Failure> {
        debug_assert!(!request.contains('\n'));
        let sent = self
            .stdin
            .as_mut()
            .map_or(Err(std::io::Error::other("stdin closed")), |s| {
                s.write_all(request.as_bytes())?;
                s.write_all(b"\n")?;
                s.flush()
            });
        if let Err(e) = sent {
            let status = self.stop();
            return Err(Failure::Io(format!("{e}; {status}")));
        }
        match self.lines.recv_timeout(timeout) {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(e)) => {
                let status = self.stop();
                Err(Failure::Exited(format!("unreadable stdout: {e}; {status}")))
            }
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Exited(self.stop())),
            Err(RecvTimeoutError::Timeout) => {
                self.terminate();
                Err(Failure::Timeout(timeout))
            }
        }
    }

    /// The last lines the worker wrote to stderr (after it stopped: all it wrote).
    pub fn stderr_tail(&self) -> String {
        let t = self.tail.lock().unwrap_or_else(|p| p.into_inner());
        t.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// Closes stdin (a worker's loop ends at EOF), waits out the grace period, kills if
    /// needed, then kills whatever it started; says how it ended.
    fn stop(&mut self) -> String {
        self.stdin = None;
        // Its descendants, found while it still parents them.
        let family = descendants(self.child.id());
        let status = self.wait_for(GRACE).or_else(|| {
            let _ = self.child.kill();
            self.child.wait().ok()
        });
        signal_all(self.child.id(), &family, Signal::Kill);
        forget(self.child.id());
        // Let the stderr thread read what the process wrote last.
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(500));
        match status {
            // ExitStatus prints itself as "exit status: 3" or "signal: 9 (SIGKILL)".
            Some(s) => s.to_string(),
            None => "exit status unknown".into(),
        }
    }

    /// SIGTERM to the worker and everything it started, then SIGKILL to what is still there
    /// after the grace period.
    fn terminate(&mut self) {
        let family = descendants(self.child.id());
        signal_all(self.child.id(), &family, Signal::Term);
        self.stop();
    }

    fn wait_for(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return Some(s),
                Ok(None) if start.elapsed() < limit => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => return None,
            }
        }
    }
}

/// One line of at most [`MAX_LINE`] bytes (without its newline), an error for a longer one
/// or bytes that are not UTF-8, `None` at the end of the stream.
fn read_line(r: &mut impl BufRead) -> Option<std::io::Result<String>> {
    let mut buf = Vec::new();
    let limit = u64::try_from(MAX_LINE).expect("fits") + 1;
    match r.by_ref().take(limit).read_until(b'\n', &mut buf) {
        Ok(0) => None,
        Ok(_) => {
            if buf.last() == Some(&b'\n') {
                buf.pop();
            } else if buf.len() > MAX_LINE {
                return Some(Err(std::io::Error::other(format!(
                    "a response line longer than {} MiB",
                    MAX_LINE >> 20
                ))));
            }
            Some(String::from_utf8(buf).map_err(std::io::Error::other))
        }
        Err(e) => Some(Err(e)),
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

/// Sends `signal` to the process group `leader` leads and to each of `family`. The leader's
/// pid names its group while any member lives (the kernel does not reuse a pid that is still
/// a group id), and a pid of `family` was a descendant a moment ago; ESRCH (gone) is fine.
fn signal_all(leader: u32, family: &[u32], signal: Signal) {
    let sig = match signal {
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    };
    let pids = std::iter::once((leader, true)).chain(family.iter().map(|&p| (p, false)));
    for (pid, group) in pids {
        if let Ok(pid) = libc::pid_t::try_from(pid)
            && pid > 1
        {
            // SAFETY: kill(2) with a positive pid (or its negation, a group) and a signal.
            unsafe {
                libc::kill(if group { -pid } else { pid }, sig);
            }
        }
    }
}

/// Every live descendant of `pid` (children first), from /proc's parent links: empty where
/// there is no /proc.
fn descendants(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parent_of: Vec<(u32, u32)> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            // "pid (comm) state ppid …": comm may hold spaces and parentheses.
            let after = &stat[stat.rfind(')')? + 1..];
            let ppid = after.split_whitespace().nth(1)?.parse().ok()?;
            Some((p, ppid))
        })
        .collect();
    let mut out = Vec::new();
    let mut frontier = vec![pid];
    while let Some(p) = frontier.pop() {
        for &(child, _) in parent_of.iter().filter(|&&(_, pp)| pp == p) {
            if !out.contains(&child) && out.len() < 10_000 {
                out.push(child);
                frontier.push(child);
            }
        }
    }
    out
}

impl Drop for Worker {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_whole_and_an_overlong_one_is_an_error() {
        let mut r = std::io::Cursor::new(b"{\"id\":1}\nlast".to_vec());
        assert_eq!(read_line(&mut r).unwrap().unwrap(), "{\"id\":1}");
        assert_eq!(read_line(&mut r).unwrap().unwrap(), "last");
        assert!(read_line(&mut r).is_none());
        let mut long = vec![b'1'; MAX_LINE + 10];
        long.push(b'\n');
        let e = read_line(&mut std::io::Cursor::new(long))
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().contains("longer than 32 MiB"), "{e}");
        let exact = vec![b'1'; MAX_LINE];
        assert_eq!(
            read_line(&mut std::io::Cursor::new(exact))
                .unwrap()
                .unwrap()
                .len(),
            MAX_LINE
        );
    }
}
