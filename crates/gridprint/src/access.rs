//! `gridprint access`: the operator's out-of-band channel to grant, revoke, reset and list access.

use crate::open::ServerArgs;
use anyhow::bail;
use clap::{Args, Subcommand};
use gridprint_store::access::normalize_email as normalize;

#[derive(Debug, Args)]
pub struct AccessArgs {
    #[command(subcommand)]
    pub command: AccessCommand,
}

#[derive(Debug, Subcommand)]
pub enum AccessCommand {
    /// Grant access to one or more emails.
    Grant {
        #[arg(required = true)]
        emails: Vec<String>,
    },
    /// Revoke access: registration and tokens removed (tokens stop working within 60 s).
    Revoke { email: String },
    /// Drop a registration so the person can register again with a new password; the grant stays.
    Reset { email: String },
    /// List grants: email, granted at, registered, last token issued.
    List,
}

fn normalize_email(raw: &str) -> anyhow::Result<String> {
    normalize(raw).ok_or_else(|| anyhow::anyhow!("'{}' is not an email address", raw.trim()))
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
        AccessCommand::Grant { emails } => {
            let emails = emails
                .iter()
                .map(|e| normalize_email(e))
                .collect::<anyhow::Result<Vec<_>>>()?;
            for e in emails {
                if store.grant(&e, now)? {
                    println!("granted {e}");
                } else {
                    println!("{e} already had access");
                }
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
            } else if store.has_grant(&e)? {
                println!("{e} was not registered; nothing to reset");
            } else {
                bail!("{e} has no access; grant it first");
            }
        }
        AccessCommand::List => {
            let rows = store.list_grants()?;
            let w = rows.iter().map(|r| r.email.len()).max().unwrap_or(5).max(5);
            println!(
                "{:<w$}  {:<20}  {:<10}  LAST TOKEN ISSUED",
                "EMAIL", "GRANTED AT", "REGISTERED"
            );
            for r in rows {
                println!(
                    "{:<w$}  {:<20}  {:<10}  {}",
                    r.email,
                    fmt_time(r.granted_at),
                    if r.registered { "yes" } else { "no" },
                    r.last_token_at.map(fmt_time).unwrap_or_else(|| "-".into())
                );
            }
        }
    }
    Ok(())
}
