//! [`Format`]: the representation of an answer, JSON (the interface's) or long-format CSV (a
//! gridprint extension, docs/api.md §7), and [`FormatParam`], the `format` query parameter every
//! data and status route takes: the server reads it (gridprint-api's `format` module, with `Accept`
//! as fallback), the client writes it (gridprint-client), the OpenAPI document lists it.

use crate::query::{QueryError, QueryParams};
use utoipa::{IntoParams, ToSchema};

/// `json` or `csv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Json,
    Csv,
}

/// `format`: the representation (JSON by default; also chosen by `Accept: text/csv`).
#[derive(Debug, Clone, Copy, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FormatParam {
    /// `json` (default) or `csv` (long format: one row per point, flags as columns). Without it,
    /// `Accept: text/csv` also selects CSV. Case-insensitive.
    pub format: Option<Format>,
}

impl FormatParam {
    /// Reads `format`: the last occurrence counts, and an empty value is an invalid one (400), as
    /// for every enum parameter (docs/api.md §2).
    pub fn from_pairs(p: &QueryParams<'_>) -> Result<FormatParam, QueryError> {
        let format = match p.value("format") {
            None => None,
            Some(v) => Some(match v.to_ascii_lowercase().as_str() {
                "json" => Format::Json,
                "csv" => Format::Csv,
                _ => {
                    return Err(QueryError::bad_request(format!(
                        "invalid format '{}': expected json or csv",
                        v.chars().take(40).collect::<String>()
                    )));
                }
            }),
        };
        Ok(FormatParam { format })
    }

    /// `format=json` or `format=csv`, or nothing.
    pub fn to_pairs(&self) -> Vec<(String, String)> {
        let name = |f: Format| match f {
            Format::Json => "json",
            Format::Csv => "csv",
        };
        crate::query::PairWriter::default()
            .text("format", self.format.map(name))
            .finish()
    }
}
