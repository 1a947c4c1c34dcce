//! Progress of long runs (`nic sim`, `nic bench`, `nic synth`): on a terminal an
//! `indicatif` bar with the rate and the time left, redrawn at most 20 times a second;
//! when stderr is not a terminal (CI logs, a pipe) plain lines, at most one a second,
//! with the same figures. Progress goes to stderr, results to stdout.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

pub struct Progress {
    bar: Option<ProgressBar>,
    label: String,
    len: Option<u64>,
    unit: &'static str,
    started: Instant,
    last_line: Instant,
    pos: u64,
}

impl Progress {
    /// `len` units of work (`None`: unknown, e.g. the steps of a tool flow).
    pub fn new(label: &str, len: Option<u64>, unit: &'static str) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let (bar, template) = match len {
                Some(n) => (ProgressBar::new(n), "{prefix} [{bar:30}] {human_pos}/{human_len} {msg} {per_sec} ({eta} left)"),
                None => (ProgressBar::new_spinner(), "{prefix} {spinner} [{elapsed}] {msg}"),
            };
            bar.set_style(ProgressStyle::with_template(template).expect("a valid template").progress_chars("=> "));
            bar.set_prefix(label.to_string());
            if len.is_none() {
                bar.enable_steady_tick(Duration::from_millis(200));
            }
            bar
        });
        let now = Instant::now();
        Progress { bar, label: label.to_string(), len, unit, started: now, last_line: now, pos: 0 }
    }

    /// `pos` units done.
    pub fn set(&mut self, pos: u64) {
        self.pos = pos;
        match &self.bar {
            Some(b) => b.set_position(pos),
            None => {
                if self.last_line.elapsed() >= Duration::from_secs(1) {
                    self.last_line = Instant::now();
                    eprintln!("{}", self.line(""));
                }
            }
        }
    }

    /// A named step begins (a tool of a flow, a frame size of a bench); a plain line
    /// for each when not on a terminal.
    pub fn step(&mut self, name: &str) {
        match &self.bar {
            Some(b) => b.set_message(name.to_string()),
            None => eprintln!("{}", self.line(name)),
        }
    }

    /// One unit done, named (e.g. "512 bytes: 8,000 frames").
    pub fn done_one(&mut self, what: &str) {
        self.pos += 1;
        match &self.bar {
            Some(b) => {
                b.set_position(self.pos);
                b.set_message(what.to_string());
            }
            None => eprintln!("{}", self.line(what)),
        }
    }

    fn line(&self, what: &str) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.pos as f64 / secs.max(1e-9);
        let mut s = format!("[{secs:>5.0} s] {}", self.label);
        if let Some(n) = self.len {
            s += &format!(": {}/{n} {} ({:.0}%), {} {}/s", self.pos, self.unit, 100.0 * self.pos as f64 / n.max(1) as f64, crate::report::si(rate), self.unit);
            if self.pos > 0 && self.pos < n {
                s += &format!(", about {:.0} s left", (n - self.pos) as f64 / rate);
            }
        }
        if !what.is_empty() {
            s += &format!(": {what}");
        }
        s
    }

    /// Removes the bar (the results follow on stdout).
    pub fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}
