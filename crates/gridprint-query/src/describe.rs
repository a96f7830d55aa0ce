//! The `format` parameter every data endpoint takes besides its query's own (the HTTP layer reads
//! it: JSON, CSV, or `Accept: text/csv`), as OpenAPI lists it. Each endpoint's own parameters come
//! from its wire query (gridprint-responses' `query`), which reads, writes and lists them.

use gridprint_responses::Format;
use utoipa::IntoParams;

/// `format`: the representation (JSON by default; also chosen by `Accept: text/csv`).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FormatParam {
    /// `json` (default) or `csv` (long format: one row per point, flags as columns). Without it,
    /// `Accept: text/csv` also selects CSV. Case-insensitive.
    pub format: Option<Format>,
}
