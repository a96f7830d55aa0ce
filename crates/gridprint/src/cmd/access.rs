//! `gridprint access`: the operator's out-of-band channel to grant, revoke, reset and list access,
//! and to set an account's own request rate limit (its tier: all its tokens share it; every `serve`
//! replica applies a change within 60 s, when it re-checks the account's tokens) and its cap on
//! active API keys, and to create, list (a page at a time) and revoke an account's API keys
//! (`access key …`).

use crate::open::ServerArgs;
use anyhow::bail;
use clap::{Args, Subcommand};
use gridprint_store::access::normalize_email as normalize;
use gridprint_store::access::{API_KEY_PAGE, DEFAULT_MAX_API_KEYS};
use gridprint_store::{AccountLimit, KeyInsert, NewApiKey};

#[derive(Debug, Args)]
pub struct AccessArgs {
    #[command(subcommand)]
    pub command: AccessCommand,
}

/// An account tier on the command line: both flags or neither.
#[derive(Debug, Args, Clone, Copy)]
pub struct TierArgs {
    /// Sustained requests per second for this account (all its tokens together); with `--burst`.
    #[arg(long, env = "GRIDPRINT_ACCESS_RATE_LIMIT", requires = "burst")]
    pub rate_limit: Option<f64>,
    /// Requests this account may send at once before its sustained rate applies; with `--rate-limit`.
    #[arg(long, env = "GRIDPRINT_ACCESS_BURST", requires = "rate_limit")]
    pub burst: Option<u32>,
}

impl TierArgs {
    fn limit(&self) -> anyhow::Result<Option<AccountLimit>> {
        match (self.rate_limit, self.burst) {
            (Some(rate), Some(burst)) => {
                anyhow::ensure!(
                    rate > 0.0 && rate.is_finite(),
                    "--rate-limit must be a positive number of requests per second"
                );
                anyhow::ensure!(burst >= 1, "--burst must be at least 1");
                Ok(Some(AccountLimit {
                    rate_per_second: rate,
                    burst,
                }))
            }
            _ => Ok(None),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum AccessCommand {
    /// Grant access to one or more emails, optionally with their own rate limit. Prints, per email,
    /// `email: …` and `code: …`: the one-time registration code to pass on with the invitation
    /// (`register` needs it). Granting an email again that is not registered yet prints a new code
    /// that replaces the earlier one.
    Grant {
        /// The emails to grant (case and surrounding spaces do not matter).
        #[arg(required = true)]
        emails: Vec<String>,
        #[command(flatten)]
        tier: TierArgs,
        /// The most active API keys this account may hold (default 20).
        #[arg(long, env = "GRIDPRINT_ACCESS_MAX_KEYS", value_parser = clap::value_parser!(u32).range(1..=10_000))]
        max_keys: Option<u32>,
        /// No registration code: whoever first registers with a granted email holds the account
        /// (the reference service's behaviour).
        #[arg(long, env = "GRIDPRINT_ACCESS_NO_CODE")]
        no_code: bool,
    },
    /// Revoke access: registration and tokens removed (tokens stop working within 60 s).
    Revoke {
        /// The email whose access ends.
        email: String,
    },
    /// Drop a registration so the person can register again with a new password; the grant stays,
    /// with a new registration code (printed as `code: …`) unless it was granted with `--no-code`.
    Reset {
        /// The email whose registration is dropped.
        email: String,
    },
    /// Set an account's own rate limit (a dashboard or proxy serving many people through one
    /// account) or its cap on active API keys, or with `--default` go back to the server's defaults.
    SetLimit {
        /// The account (email) whose limit is set.
        email: String,
        #[command(flatten)]
        tier: TierArgs,
        /// The most active API keys this account may hold (default 20).
        #[arg(long, env = "GRIDPRINT_ACCESS_MAX_KEYS", value_parser = clap::value_parser!(u32).range(1..=10_000))]
        max_keys: Option<u32>,
        /// Remove the account's own limits (the server's `--rate-limit-*` and the cap of 20 API
        /// keys apply again).
        #[arg(long, env = "GRIDPRINT_ACCESS_DEFAULT_LIMIT", conflicts_with_all = ["rate_limit", "burst", "max_keys"])]
        default: bool,
    },
    /// List grants: email, granted at, registered, last token issued, rate limit, API key cap.
    List,
    /// API keys: long-lived credentials that work wherever a token does (`Authorization: Bearer`
    /// or `auth-token`), sharing the account's rate limit.
    Key {
        #[command(subcommand)]
        command: KeyCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Create a key for an email with access; the key is printed once, alone on the last line.
    Create {
        email: String,
        /// A label to recognise the key by in `access key list`.
        #[arg(long, env = "GRIDPRINT_KEY_NAME", default_value = "")]
        name: String,
        /// Days until the key expires (default: `--api-key-default-expiry-days`, else never).
        #[arg(long, env = "GRIDPRINT_KEY_EXPIRES_DAYS", value_parser = clap::value_parser!(u32).range(1..=36_500))]
        expires_days: Option<u32>,
        /// Days until a key expires when `--expires-days` is not given (the variable `serve`
        /// reads too); unset: never.
        #[arg(long, env = "GRIDPRINT_API_KEY_DEFAULT_EXPIRY_DAYS", value_parser = clap::value_parser!(u32).range(1..=36_500))]
        api_key_default_expiry_days: Option<u32>,
    },
    /// List keys (all, or one email's), 100 at a time: id, email, name, created, last used,
    /// expiry — never the key. The last line names the `--after` of the next page, if any.
    List {
        email: Option<String>,
        /// List the keys after this id (the next page).
        #[arg(long, env = "GRIDPRINT_KEY_LIST_AFTER", default_value_t = 0)]
        after: i64,
    },
    /// Revoke a key by id: it stops working on every server within 60 s.
    Revoke { id: i64 },
}

fn run_key(
    store: &dyn gridprint_store::Store,
    command: &KeyCommand,
    now: i64,
) -> anyhow::Result<()> {
    match command {
        KeyCommand::Create {
            email,
            name,
            expires_days,
            api_key_default_expiry_days,
        } => {
            let expires_days = expires_days.or(*api_key_default_expiry_days);
            let e = normalize_email(email)?;
            if !store.has_grant(&e)? {
                bail!("{e} has no access; grant it first");
            }
            anyhow::ensure!(
                name.chars().count() <= 100,
                "--name: at most 100 characters"
            );
            let key =
                gridprint_api::tokens::token::new_token().map_err(|e| anyhow::anyhow!("{e:?}"))?;
            let inserted = store.insert_api_key(&NewApiKey {
                // SHA-256 without salt or stretching is enough here: the key is 256 bits from the
                // OS RNG, so no dictionary or brute force applies (Argon2id is for passwords), and
                // a fast hash keeps the lookup of every request's key a single indexed read.
                key_hash: gridprint_api::tokens::auth::token_hash(&key),
                email: e.clone(),
                name: name.clone(),
                created_at: now,
                expires_at: expires_days.map(|d| now + i64::from(d) * 86_400),
            })?;
            let id = match inserted {
                KeyInsert::Created(id) => id,
                KeyInsert::AtLimit(max) => bail!(
                    "{e} holds {max} active API keys, its cap: revoke one, or raise it with `access set-limit {e} --max-keys N`"
                ),
            };
            println!(
                "created key {id} for {e}{}; it is shown only this once:",
                expires_days
                    .map(|d| format!(", expiring in {d} days"))
                    .unwrap_or_default()
            );
            println!("{key}");
        }
        KeyCommand::List { email, after } => {
            let e = email.as_deref().map(normalize_email).transpose()?;
            let mut rows = store.list_api_keys(e.as_deref(), *after, API_KEY_PAGE + 1)?;
            let more = rows.len() > API_KEY_PAGE as usize;
            rows.truncate(API_KEY_PAGE as usize);
            let next = rows.last().map(|r| r.id).filter(|_| more);
            println!(
                "{:<6}  {:<30}  {:<20}  {:<20}  {:<20}  EXPIRES",
                "ID", "EMAIL", "NAME", "CREATED", "LAST USED"
            );
            for r in rows {
                println!(
                    "{:<6}  {:<30}  {:<20}  {:<20}  {:<20}  {}",
                    r.id,
                    r.email,
                    if r.name.is_empty() { "-" } else { &r.name },
                    fmt_time(r.created_at),
                    r.last_used_at.map(fmt_time).unwrap_or_else(|| "-".into()),
                    r.expires_at.map(fmt_time).unwrap_or_else(|| "never".into()),
                );
            }
            if let Some(next) = next {
                println!("more: access key list --after {next}");
            }
        }
        KeyCommand::Revoke { id } => {
            if !store.revoke_api_key(*id, None)? {
                bail!("no API key with id {id}");
            }
            println!("revoked key {id} (it stops working on every server within 60 s)");
        }
    }
    Ok(())
}

fn fmt_limit(l: Option<AccountLimit>) -> String {
    l.map(|l| format!("{}/s burst {}", l.rate_per_second, l.burst))
        .unwrap_or_else(|| "default".into())
}

fn fmt_max_keys(m: Option<u32>) -> String {
    m.map_or_else(
        || format!("default ({DEFAULT_MAX_API_KEYS})"),
        |m| m.to_string(),
    )
}

fn normalize_email(raw: &str) -> anyhow::Result<String> {
    normalize(raw).ok_or_else(|| anyhow::anyhow!("'{}' is not an email address", raw.trim()))
}

/// A new registration code and its stored hash (`None`, `None` for `--no-code`).
fn registration_code(no_code: bool) -> anyhow::Result<(Option<String>, Option<String>)> {
    if no_code {
        return Ok((None, None));
    }
    let code = gridprint_api::tokens::registration_code::new_code()?;
    let hash = gridprint_api::tokens::registration_code::code_hash(&code);
    Ok((Some(code), Some(hash)))
}

fn fmt_time(t: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(t)
        .map(gridprint_core::slot::format_timestamp)
        .unwrap_or_else(|_| t.to_string())
}

pub fn run(g: &ServerArgs, args: &AccessArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    match &args.command {
        AccessCommand::Grant {
            emails,
            tier,
            max_keys,
            no_code,
        } => {
            let limit = tier.limit()?;
            let emails = emails
                .iter()
                .map(|e| normalize_email(e))
                .collect::<anyhow::Result<Vec<_>>>()?;
            for e in emails {
                let (code, hash) = registration_code(*no_code)?;
                println!("email: {e}");
                let code = if store.grant(&e, hash.as_deref(), now)? {
                    println!("granted");
                    Some(code)
                } else if store.set_registration_code(&e, hash.as_deref())? {
                    println!(
                        "already had access, not registered yet: this replaces its earlier code"
                    );
                    Some(code)
                } else {
                    println!(
                        "already had access and is registered (`access reset` for a new code)"
                    );
                    None
                };
                match code {
                    Some(Some(code)) => println!("code: {code}"),
                    Some(None) => {
                        println!("no registration code: the first to register this email holds it")
                    }
                    None => {}
                }
                if limit.is_some() {
                    store.set_limit(&e, limit)?;
                    println!("rate limit of {e}: {}", fmt_limit(limit));
                }
                if max_keys.is_some() {
                    store.set_max_api_keys(&e, *max_keys)?;
                    println!("API key cap of {e}: {}", fmt_max_keys(*max_keys));
                }
            }
        }
        AccessCommand::SetLimit {
            email,
            tier,
            max_keys,
            default,
        } => {
            let e = normalize_email(email)?;
            let limit = tier.limit()?;
            if limit.is_none() && max_keys.is_none() && !default {
                bail!("give --rate-limit N --burst M, --max-keys N, or --default");
            }
            if !store.has_grant(&e)? {
                bail!("{e} has no access; grant it first");
            }
            if limit.is_some() || *default {
                store.set_limit(&e, limit)?;
                println!(
                    "rate limit of {e}: {} (every server applies it within 60 s)",
                    fmt_limit(limit)
                );
            }
            if max_keys.is_some() || *default {
                store.set_max_api_keys(&e, *max_keys)?;
                println!("API key cap of {e}: {}", fmt_max_keys(*max_keys));
            }
        }
        AccessCommand::Revoke { email } => {
            let e = normalize_email(email)?;
            if store.revoke(&e)? {
                println!(
                    "revoked {e}: registration and tokens removed (tokens stop working within 60 s)"
                );
            } else {
                bail!("{e} has no access to revoke");
            }
        }
        AccessCommand::Reset { email } => {
            let e = normalize_email(email)?;
            if store.reset(&e)? {
                println!("reset {e}: they can register again with a new password");
                let no_code = store.registration_code(&e)? == Some(None);
                let (code, hash) = registration_code(no_code)?;
                if let Some(code) = code
                    && store.set_registration_code(&e, hash.as_deref())?
                {
                    println!("code: {code}");
                }
            } else if store.has_grant(&e)? {
                println!("{e} was not registered; nothing to reset");
            } else {
                bail!("{e} has no access; grant it first");
            }
        }
        AccessCommand::Key { command } => run_key(&*store, command, now)?,
        AccessCommand::List => {
            let rows = store.list_grants()?;
            let w = rows.iter().map(|r| r.email.len()).max().unwrap_or(5).max(5);
            println!(
                "{:<w$}  {:<20}  {:<10}  {:<20}  {:<24}  API KEYS AT MOST",
                "EMAIL", "GRANTED AT", "REGISTERED", "LAST TOKEN ISSUED", "RATE LIMIT"
            );
            for r in rows {
                println!(
                    "{:<w$}  {:<20}  {:<10}  {:<20}  {:<24}  {}",
                    r.email,
                    fmt_time(r.granted_at),
                    if r.registered { "yes" } else { "no" },
                    r.last_token_at.map(fmt_time).unwrap_or_else(|| "-".into()),
                    fmt_limit(r.limit),
                    fmt_max_keys(r.max_api_keys)
                );
            }
        }
    }
    Ok(())
}
