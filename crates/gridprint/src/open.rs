//! Opening what every subcommand needs: the store named by `--database` and the reference data.

use crate::cli::Global;
use anyhow::{Context, bail};
use gridprint_core::reference::{ReferenceData, ReferenceFiles, ZoneSet};
use gridprint_store::SharedStore;
use std::sync::Arc;

/// Opens the configured database (applying migrations).
pub fn open_store(g: &Global) -> anyhow::Result<SharedStore> {
    let url = g.database.trim();
    if url.starts_with("sqlite:") {
        let store = gridprint_store_sqlite::SqliteStore::open_url_with(url, g.read_only)
            .with_context(|| format!("opening database {}", redact(url)))?;
        Ok(Arc::new(store))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let store =
            gridprint_store_postgres::PgStore::connect_with(url, g.db_max_connections, g.read_only)
                .with_context(|| format!("opening database {}", redact(url)))?;
        Ok(Arc::new(store))
    } else {
        bail!(
            "unsupported database URL {} (use sqlite://PATH or postgres://…)",
            redact(url)
        )
    }
}

/// Loads reference data: embedded, or from `--reference-dir`.
pub fn load_reference(g: &Global) -> anyhow::Result<Arc<ReferenceData>> {
    let set = ZoneSet::parse(&g.zone_set)
        .with_context(|| format!("unknown zone set '{}' (use selected or full)", g.zone_set))?;
    let mut files = ReferenceFiles::embedded(set);
    if let Some(dir) = &g.reference_dir {
        for (name, text) in [
            &mut files.zones,
            &mut files.crossborders,
            &mut files.carbon,
            &mut files.water,
            &mut files.aware,
            &mut files.geojson,
        ] {
            let path = dir.join(&*name);
            *text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
        }
    }
    Ok(Arc::new(ReferenceData::load(&files)?))
}

/// A database URL with any password replaced, safe for messages and logs.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.find(':') {
                Some(c) => format!("{}{}:***{}", &url[..s + 3], &creds[..c], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn redacts_passwords() {
        assert_eq!(
            super::redact("postgres://u:secret@h/db"),
            "postgres://u:***@h/db"
        );
        assert_eq!(super::redact("sqlite://x.db"), "sqlite://x.db");
    }
}
