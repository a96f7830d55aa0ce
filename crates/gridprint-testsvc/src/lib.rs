//! Test support only: the PostgreSQL and Redis servers that gridprint's integration tests use.
//!
//! [`postgres_url`] and [`redis_url`] return the server named by `GRIDPRINT_TEST_POSTGRES_URL` /
//! `GRIDPRINT_TEST_REDIS_URL` (defaults `postgres://postgres@127.0.0.1:5432/postgres` and
//! `redis://127.0.0.1:6379`) when something answers there. Otherwise they start a throwaway server
//! from the installed binaries — PostgreSQL with `initdb` + `pg_ctl` (as the `postgres` user through
//! `runuser` when the tests run as root), Redis through the `redis-test` crate (`redis-server
//! --save ''`) — in a temporary directory on a free port, once per test process, and return its URL.
//! A watchdog process stops the server and removes its directory as soon as the test process exits,
//! however it exits (the pipe it reads closes). When the binaries are missing, every test that asks
//! fails with one line naming the Debian package to install (`postgresql`, `redis-server`); no test
//! skips.

use std::io::Write as _;
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The variable naming the PostgreSQL server of the tests.
pub const POSTGRES_ENV: &str = "GRIDPRINT_TEST_POSTGRES_URL";
/// Default of [`POSTGRES_ENV`].
pub const POSTGRES_DEFAULT: &str = "postgres://postgres@127.0.0.1:5432/postgres";
/// The variable naming the Redis server of the tests.
pub const REDIS_ENV: &str = "GRIDPRINT_TEST_REDIS_URL";
/// Default of [`REDIS_ENV`].
pub const REDIS_DEFAULT: &str = "redis://127.0.0.1:6379";

/// How long a server may take to accept connections after it started.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// A server this process uses: its URL, and (for a throwaway one) the pipe whose closing stops it.
struct Service {
    url: String,
    _watchdog: Option<ChildStdin>,
}

/// The administrative URL of the tests' PostgreSQL server (database `postgres`, superuser
/// `postgres`): the configured one when it answers, else a throwaway cluster shared by this process.
/// Panics with one line when neither is possible.
pub fn postgres_url() -> String {
    static PG: OnceLock<Result<Service, String>> = OnceLock::new();
    shared(&PG, || {
        resolve(
            &configured(POSTGRES_ENV, POSTGRES_DEFAULT),
            5432,
            start_postgres,
        )
    })
}

/// The URL of the tests' Redis server: the configured one when it answers, else a throwaway
/// `redis-server` shared by this process. Panics with one line when neither is possible.
pub fn redis_url() -> String {
    static REDIS: OnceLock<Result<Service, String>> = OnceLock::new();
    shared(&REDIS, || {
        resolve(&configured(REDIS_ENV, REDIS_DEFAULT), 6379, start_redis)
    })
}

fn shared(
    cell: &'static OnceLock<Result<Service, String>>,
    init: impl FnOnce() -> Result<Service, String>,
) -> String {
    match cell.get_or_init(init) {
        Ok(s) => s.url.clone(),
        Err(e) => panic!("{e}"),
    }
}

fn configured(var: &str, default: &str) -> String {
    std::env::var(var)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| default.to_string())
}

/// `configured` when a server accepts TCP connections there, else what `start` brings up.
fn resolve(
    configured: &str,
    default_port: u16,
    start: fn() -> Result<Service, String>,
) -> Result<Service, String> {
    if answers(configured, default_port) {
        return Ok(Service {
            url: configured.to_string(),
            _watchdog: None,
        });
    }
    start()
}

/// Whether something accepts a TCP connection at the host and port of `url`. A URL without a TCP
/// host (a Unix socket) is taken as answering: the test then reports what the client says.
pub fn answers(url: &str, default_port: u16) -> bool {
    let Ok(parsed) = url::Url::parse(url) else {
        return true;
    };
    let Some(host) = parsed.host_str().filter(|h| !h.is_empty()) else {
        return true;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let port = parsed.port().unwrap_or(default_port);
    let Ok(addrs) = (host, port).to_socket_addrs() else {
        return false;
    };
    addrs
        .into_iter()
        .any(|a| TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok())
}

/// A port nothing listens on right now (the kernel's choice).
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("cannot find a free port for a test server: {e}"))
}

/// Waits until `127.0.0.1:port` accepts connections.
fn wait_ready(port: u16, what: &str) -> Result<(), String> {
    let started = Instant::now();
    while started.elapsed() < READY_TIMEOUT {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!(
        "the throwaway {what} on port {port} did not accept connections within {} s",
        READY_TIMEOUT.as_secs()
    ))
}

/// Starts `sh -c script sh ARGS…` in its own process group (a Ctrl-C of the test run does not reach
/// it) reading a pipe from this process: the script's first command, `cat >/dev/null`, returns when
/// this process exits and closes its end, and the rest of the script stops the server.
fn watchdog(script: &str, args: &[&str]) -> Result<ChildStdin, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("cat >/dev/null; {script}"))
        .arg("sh")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the test servers' watchdog (sh): {e}"))?;
    let mut stdin = child.stdin.take().ok_or("watchdog without stdin")?;
    // Nothing is ever read; a byte proves the pipe works.
    let _ = stdin.write_all(b"\n");
    Ok(stdin)
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

/// The one line a test prints when PostgreSQL cannot be provided because it is not installed.
pub const POSTGRES_MISSING: &str = "no PostgreSQL server answers at GRIDPRINT_TEST_POSTGRES_URL and its binaries (initdb, pg_ctl) are not installed: install the Debian package `postgresql` (apt-get install postgresql)";

/// The directory holding `initdb` and `pg_ctl`: the newest `/usr/lib/postgresql/*/bin` (Debian
/// keeps them off `PATH`), else the first directory of `path` that has both.
pub fn postgres_bin_dir(debian_root: &Path, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let has_both = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(debian_root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, d)| has_both(d))
        .collect();
    versions.sort();
    if let Some((_, d)) = versions.pop() {
        return Some(d);
    }
    std::env::split_paths(path?).find(|d| has_both(d))
}

/// Whether this process runs as root (PostgreSQL refuses to: it then runs as `postgres`).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `program args…`, through `runuser -u postgres --` when root.
fn pg_command(as_postgres: bool, program: &Path) -> Command {
    if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run_checked(mut c: Command, what: &str) -> Result<(), String> {
    let out = c
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    Err(format!(
        "{what} failed ({}): {}",
        out.status,
        last.unwrap_or("no message")
    ))
}

fn start_postgres() -> Result<Service, String> {
    let bin = postgres_bin_dir(
        Path::new("/usr/lib/postgresql"),
        std::env::var_os("PATH").as_deref(),
    )
    .ok_or_else(|| POSTGRES_MISSING.to_string())?;
    let root = is_root();
    let dir = tempfile::Builder::new()
        .prefix("gridprint-test-pg.")
        .tempdir()
        .map_err(|e| format!("cannot create a directory for a throwaway PostgreSQL: {e}"))?
        .keep();
    let dir_s = dir.to_string_lossy().into_owned();
    let data = format!("{dir_s}/data");
    if root {
        let mut chown = Command::new("chown");
        chown.args(["postgres:", &dir_s]);
        run_checked(
            chown,
            "chown postgres (the `postgres` user comes with the package `postgresql`)",
        )?;
    }
    let mut initdb = pg_command(root, &bin.join("initdb"));
    initdb.args([
        "-D", &data, "-A", "trust", "-U", "postgres", "-N", "-E", "UTF8",
    ]);
    initdb.args(["--locale", "C"]);
    run_checked(initdb, "initdb")?;
    // A free port can be taken between the check and the start: try a few.
    let mut last = String::new();
    for _ in 0..3 {
        let port = free_port()?;
        let opts = format!(
            "-p {port} -k {dir_s} -c listen_addresses=127.0.0.1 -c max_connections=300 \
             -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        );
        let mut ctl = pg_command(root, &bin.join("pg_ctl"));
        ctl.args(["-D", &data, "-o", &opts, "-l", &format!("{dir_s}/log")]);
        ctl.args(["-w", "-t", "60", "start"]);
        match run_checked(ctl, "pg_ctl start") {
            Ok(()) => {
                let pg_ctl = bin.join("pg_ctl").to_string_lossy().into_owned();
                let guard = watchdog(
                    r#"if [ "$4" = root ]; then runuser -u postgres -- "$1" -D "$2" -m immediate stop; else "$1" -D "$2" -m immediate stop; fi; rm -rf "$3""#,
                    &[&pg_ctl, &data, &dir_s, if root { "root" } else { "user" }],
                )?;
                wait_ready(port, "PostgreSQL")?;
                return Ok(Service {
                    url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
                    _watchdog: Some(guard),
                });
            }
            Err(e) => last = e,
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Err(format!("cannot start a throwaway PostgreSQL: {last}"))
}

// ---------------------------------------------------------------------------------------------
// Redis
// ---------------------------------------------------------------------------------------------

/// The one line a test prints when Redis cannot be provided because it is not installed.
pub const REDIS_MISSING: &str = "no Redis server answers at GRIDPRINT_TEST_REDIS_URL and `redis-server` is not installed: install the Debian package `redis-server` (apt-get install redis-server)";

/// Whether `program` is an executable file in one of the directories of `path`.
pub fn on_path(program: &str, path: Option<&std::ffi::OsStr>) -> bool {
    path.is_some_and(|p| std::env::split_paths(p).any(|d| d.join(program).is_file()))
}

fn start_redis() -> Result<Service, String> {
    if !on_path("redis-server", std::env::var_os("PATH").as_deref()) {
        return Err(REDIS_MISSING.to_string());
    }
    let server = std::panic::catch_unwind(redis_test::server::RedisServer::new)
        .map_err(|_| "cannot start a throwaway redis-server".to_string())?;
    let redis_test::server::RedisServer {
        ref process,
        ref tempdir,
        ref addr,
        ..
    } = server;
    let redis::ConnectionAddr::Tcp(host, port) = addr else {
        return Err(format!(
            "unexpected throwaway Redis address {addr:?} (REDISRS_SERVER_TYPE?)"
        ));
    };
    let (host, port) = (host.clone(), *port);
    let guard = watchdog(
        r#"kill "$1"; rm -rf "$2""#,
        &[&process.id().to_string(), &tempdir.path().to_string_lossy()],
    )?;
    // The watchdog stops it; dropping the handle would stop it at once.
    std::mem::forget(server);
    wait_ready(port, "Redis")?;
    Ok(Service {
        url: format!("redis://{host}:{port}"),
        _watchdog: Some(guard),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_binaries_name_the_package_in_one_line() {
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(
            postgres_bin_dir(empty.path(), Some(empty.path().as_os_str())),
            None
        );
        assert!(!on_path("redis-server", Some(empty.path().as_os_str())));
        for (msg, package) in [
            (POSTGRES_MISSING, "`postgresql`"),
            (REDIS_MISSING, "`redis-server`"),
        ] {
            assert!(!msg.contains('\n'), "{msg}");
            assert!(
                msg.contains(&format!("install the Debian package {package}")),
                "{msg}"
            );
        }
    }

    #[test]
    fn finds_the_newest_debian_postgres() {
        let root = tempfile::tempdir().unwrap();
        for v in ["9", "15", "13"] {
            let bin = root.path().join(v).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            std::fs::write(bin.join("initdb"), "").unwrap();
            std::fs::write(bin.join("pg_ctl"), "").unwrap();
        }
        assert_eq!(
            postgres_bin_dir(root.path(), None),
            Some(root.path().join("15").join("bin"))
        );
    }

    #[test]
    fn a_dead_port_does_not_answer() {
        let port = free_port().unwrap();
        assert!(!answers(&format!("redis://127.0.0.1:{port}"), 6379));
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let live = l.local_addr().unwrap().port();
        assert!(answers(
            &format!("postgres://postgres@127.0.0.1:{live}/postgres"),
            5432
        ));
    }
}
