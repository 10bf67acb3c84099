//! Kernel command-line parsing, following Linux's rules (see
//! `Documentation/admin-guide/kernel-parameters.rst`).

use alloc::string::String;
use alloc::vec::Vec;

/// A kernel command line split into parameters and init arguments.
///
/// Words are separated by ASCII whitespace. A word is either `key=value`
/// (split at the first `=`) or a bare `key`. Double quotes group text that
/// contains spaces and are removed: `init="/bin/sh -x"` and
/// `"init=/bin/sh -x"` both give `init` the value `/bin/sh -x`. An
/// unterminated quote runs to the end of the line. There are no escape
/// characters, as in Linux.
///
/// An unquoted bare `--` ends the kernel's parameters; every word after it,
/// unsplit, becomes an argument for init.
///
/// As in Linux, `-` and `_` are interchangeable in keys when looking them
/// up, so `has("no_hz")` finds `no-hz`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandLine {
    params: Vec<(String, Option<String>)>,
    init_args: Vec<String>,
}

/// One word of the command line, with quotes removed.
struct Word {
    text: String,
    /// The word contained a quote character, so it is never the `--`
    /// separator, and an empty one is still a (deliberately empty) word.
    quoted: bool,
}

/// Splits `s` into words, honouring double quotes.
fn words(s: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut current: Option<Word> = None;
    let mut in_quotes = false;
    for c in s.chars() {
        if c == '"' {
            in_quotes = !in_quotes;
            current
                .get_or_insert_with(|| Word {
                    text: String::new(),
                    quoted: true,
                })
                .quoted = true;
        } else if c.is_ascii_whitespace() && !in_quotes {
            if let Some(w) = current.take() {
                out.push(w);
            }
        } else {
            current
                .get_or_insert_with(|| Word {
                    text: String::new(),
                    quoted: false,
                })
                .text
                .push(c);
        }
    }
    out.extend(current);
    out
}

/// Compares parameter names treating `-` and `_` as the same character.
fn key_eq(a: &str, b: &str) -> bool {
    let norm = |c: u8| if c == b'-' { b'_' } else { c };
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| norm(x) == norm(y))
}

impl CommandLine {
    /// Parses a command line. Parsing cannot fail: every string is a valid
    /// (possibly empty) command line.
    pub fn parse(s: &str) -> Self {
        let mut cmdline = CommandLine::default();
        let mut all = words(s).into_iter();
        for w in all.by_ref() {
            if !w.quoted && w.text == "--" {
                break;
            }
            let (key, value) = match w.text.split_once('=') {
                Some((k, v)) => (String::from(k), Some(String::from(v))),
                None => (w.text, None),
            };
            // A lone `""` names nothing; keep only words that say something.
            if key.is_empty() && value.is_none() {
                continue;
            }
            cmdline.params.push((key, value));
        }
        cmdline.init_args = all.map(|w| w.text).collect();
        cmdline
    }

    /// Returns the value of the last `key=value` occurrence of `key`, or
    /// `None` if `key` never appears with a value (bare `key` words are only
    /// seen by [`CommandLine::has`]).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .rev()
            .filter(|(k, _)| key_eq(k, key))
            .find_map(|(_, v)| v.as_deref())
    }

    /// Reports whether `key` appears at all, bare or with a value.
    pub fn has(&self, key: &str) -> bool {
        self.params.iter().any(|(k, _)| key_eq(k, key))
    }

    /// Returns every parameter before `--`, in command-line order, as
    /// `(key, value)` with `value` `None` for bare words.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&str>)> + '_ {
        self.params.iter().map(|(k, v)| (k.as_str(), v.as_deref()))
    }

    /// Returns the arguments after `--`, to be passed to init.
    pub fn init_args(&self) -> &[String] {
        &self.init_args
    }

    /// What Linux hands init from the parameters the kernel does not know
    /// (`known` names those it does): each unknown `key=value` becomes an
    /// environment entry (a later one replaces an earlier one of the same
    /// key), each unknown bare word an argument ahead of those after `--`.
    /// Names with a `.` are module options and go nowhere.
    pub fn for_init(&self, known: &[&str]) -> (Vec<String>, Vec<String>) {
        let mut env: Vec<String> = Vec::new();
        let mut args = Vec::new();
        for (key, value) in &self.params {
            if key.contains('.') || known.iter().any(|k| key_eq(k, key)) {
                continue;
            }
            match value {
                Some(value) => {
                    let entry = alloc::format!("{}={}", key, value);
                    match env.iter_mut().find(|e| e.split_once('=').is_some_and(|(k, _)| k == key)) {
                        Some(slot) => *slot = entry,
                        None => env.push(entry),
                    }
                }
                None => args.push(key.clone()),
            }
        }
        args.extend(self.init_args.iter().cloned());
        (env, args)
    }
}
