//! `gridprint migrate`: applies the store's pending migrations and exits. Every server-side command
//! migrates when it opens the store ([`crate::open::open_store`]); this one does only that, for a
//! deployment that migrates before it starts its replicas (docs/scaling.md, deploy/README.md).

use crate::open::ServerArgs;

/// Opens the store (which migrates it) and says so.
pub fn run(server: &ServerArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(server)?;
    println!("database {} is up to date", store.describe());
    Ok(())
}
