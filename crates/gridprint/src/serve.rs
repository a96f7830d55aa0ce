//! `gridprint serve`: the token service and the data API in one process.
//!
//! Builds the tokio runtime, opens the store and the reference data, binds `--listen` and serves
//! [`gridprint_api::router`] until SIGTERM or Ctrl-C, then lets in-flight requests finish. The bound
//! address is printed to stderr as `listening on http://ADDR`, so scripts can start it on port 0 and
//! read the port.

use crate::cli::Global;
use anyhow::Context;
use clap::Args;
use gridprint_api::{ApiConfig, AppState};
use gridprint_core::slot::SystemClock;
use std::sync::Arc;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "GRIDPRINT_LISTEN", default_value = "127.0.0.1:8000")]
    pub listen: String,
    /// Import the bundled demo data into an empty database first.
    #[arg(long, env = "GRIDPRINT_DEMO")]
    pub demo: bool,
}

pub fn run(g: &Global, args: &ServeArgs) -> anyhow::Result<()> {
    if args.demo {
        crate::import::run_demo(g).context("importing the demo data")?;
    }
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let addr = listener.local_addr().context("reading the bound address")?;
        let description = store.describe();
        let state = AppState::new(store, reference, Arc::new(SystemClock), ApiConfig::default());
        tracing::info!(%addr, database = %description, "serving the token service and the data API");
        eprintln!("listening on http://{addr}");
        gridprint_api::serve(listener, state, shutdown_signal()).await.context("serving HTTP")?;
        tracing::info!("stopped");
        Ok(())
    })
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
