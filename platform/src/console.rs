//! The kernel console (COM1) and the `log` backend.

use core::fmt::{self, Write};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::arch::serial;
use crate::sync::IrqSpinLock;

/// Serialises whole lines: without it, CPUs printing at once interleave
/// characters. Taken from interrupt and exception handlers too, hence the
/// interrupt-disabling kind.
static CONSOLE: IrqSpinLock<()> = IrqSpinLock::new(());
static PANICKING: AtomicBool = AtomicBool::new(false);

struct SerialWriter;

impl Write for SerialWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        serial::write_bytes(s.as_bytes());
        Ok(())
    }
}

/// Prints formatted text to the console as one unit.
pub fn print_fmt(args: fmt::Arguments<'_>) {
    let _guard = CONSOLE.lock();
    let _ = SerialWriter.write_fmt(args);
}

/// Writes raw bytes (user output to the console), `\n` as `\r\n`.
pub fn write_raw(bytes: &[u8]) {
    let _guard = CONSOLE.lock();
    serial::write_bytes(bytes);
}

/// Writes bytes exactly as given (a terminal's output, already processed
/// by its line discipline).
pub fn write_exact(bytes: &[u8]) {
    let _guard = CONSOLE.lock();
    for &b in bytes {
        serial::write_byte(b);
    }
}

/// Prints without taking the console lock: for the panic and fatal-exception
/// paths, where the lock holder may be the CPU that just died.
pub fn print_fmt_unlocked(args: fmt::Arguments<'_>) {
    let _ = SerialWriter.write_fmt(args);
}

/// Marks the system as panicking, and frees the console from whichever CPU
/// held it. Returns false if another CPU panicked first.
pub fn enter_panic() -> bool {
    let first = !PANICKING.swap(true, Ordering::SeqCst);
    CONSOLE.force_unlock();
    first
}

/// Prints to the kernel console.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { $crate::console::print_fmt(format_args!($($arg)*)) };
}

/// Prints a line to the kernel console and records it in the kernel log.
#[macro_export]
macro_rules! println {
    () => { $crate::print!("\n") };
    ($($arg:tt)*) => { $crate::console::print_line(format_args!($($arg)*)) };
}

/// Receives every kernel message: its syslog level (0 emergency .. 7
/// debug), the monotonic time in ns, and the text without a newline.
/// Called from any context, interrupt handlers included.
pub type MessageSink = fn(u8, u64, fmt::Arguments<'_>);

static SINK: IrqSpinLock<Option<MessageSink>> = IrqSpinLock::new(None);

/// Sets where kernel messages are recorded (the kernel's log buffer).
pub fn set_message_sink(sink: MessageSink) {
    *SINK.lock() = Some(sink);
}

fn record(level: u8, ns: u64, args: fmt::Arguments<'_>) {
    let sink = *SINK.lock();
    if let Some(sink) = sink {
        sink(level, ns, args);
    }
}

/// Syslog level of lines printed with `println!` (KERN_INFO).
const PRINTLN_LEVEL: u8 = 6;

/// Prints `args` and a newline to the console as one unit, and records the
/// line in the kernel log.
pub fn print_line(args: fmt::Arguments<'_>) {
    print_fmt(format_args!("{}\n", args));
    if !PANICKING.load(Ordering::Relaxed) {
        record(PRINTLN_LEVEL, crate::time::monotonic_ns(), args);
    }
}

static MAX_LEVEL: AtomicUsize = AtomicUsize::new(log::LevelFilter::Info as usize);

struct ConsoleLogger;

impl log::Log for ConsoleLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() as usize <= MAX_LEVEL.load(Ordering::Relaxed)
    }

    fn log(&self, record: &log::Record<'_>) {
        // The log keeps every message up to informational ones whatever the
        // console shows, as Linux's printk buffer does.
        let to_console = self.enabled(record.metadata());
        let to_log = record.level() <= log::Level::Info || to_console;
        if !to_log {
            return;
        }
        let ns = crate::time::monotonic_ns();
        if !PANICKING.load(Ordering::Relaxed) {
            let syslog_level = match record.level() {
                log::Level::Error => 3,
                log::Level::Warn => 4,
                log::Level::Info => 6,
                log::Level::Debug | log::Level::Trace => 7,
            };
            self::record(syslog_level, ns, *record.args());
        }
        if !to_console {
            return;
        }
        let cpu = crate::arch::percpu::cpu_index();
        let level = match record.level() {
            log::Level::Error => "error: ",
            log::Level::Warn => "warning: ",
            log::Level::Info => "",
            log::Level::Debug => "debug: ",
            log::Level::Trace => "trace: ",
        };
        print_fmt(format_args!(
            "[{:5}.{:06} cpu{}] {}{}\n",
            ns / 1_000_000_000,
            (ns / 1000) % 1_000_000,
            cpu,
            level,
            record.args()
        ));
    }

    fn flush(&self) {}
}

static LOGGER: ConsoleLogger = ConsoleLogger;

/// Installs the console as the `log` backend.
pub fn init_logger() {
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(log::LevelFilter::Trace);
}

/// Sets the most verbose level printed (`log=debug` on the command line).
pub fn set_level(level: log::LevelFilter) {
    MAX_LEVEL.store(level as usize, Ordering::Relaxed);
}

/// Returns the most verbose level printed.
pub fn level() -> log::LevelFilter {
    match MAX_LEVEL.load(Ordering::Relaxed) {
        0 => log::LevelFilter::Off,
        1 => log::LevelFilter::Error,
        2 => log::LevelFilter::Warn,
        3 => log::LevelFilter::Info,
        4 => log::LevelFilter::Debug,
        _ => log::LevelFilter::Trace,
    }
}
