//! `/status` and `/status/{component}` (answered by the HTTP layer from its own health checks, not
//! through the endpoint table).

use gridprint_responses::StatusResponse;

/// States of the upstream providers, as the caller tracks them (e.g. `up`, `down`, `unknown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderStates<'a> {
    pub entsoe: &'a str,
    pub elexon: &'a str,
    pub epias: &'a str,
}

/// `/status`: storage up or down and the providers' states (the HTTP layer adds `demo`).
pub fn status(storage_up: bool, providers: ProviderStates<'_>) -> StatusResponse {
    StatusResponse {
        storage: if storage_up { "up" } else { "down" },
        entsoe: providers.entsoe.to_string(),
        elexon: providers.elexon.to_string(),
        epias: providers.epias.to_string(),
        demo: None,
    }
}

/// `/status/{component}`: the one key (`storage`, `entso-e`, `elexon`, `epias`, case-insensitive) as
/// a JSON object; 404 for another name.
pub fn status_component(
    status: &StatusResponse,
    component: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, crate::QueryError> {
    let key = component.trim().to_ascii_lowercase();
    let value = match key.as_str() {
        "storage" => status.storage.to_string(),
        "entso-e" => status.entsoe.clone(),
        "elexon" => status.elexon.clone(),
        "epias" => status.epias.clone(),
        _ => {
            return Err(crate::QueryError::not_found(
                "unknown status component: expected storage, entso-e, elexon or epias",
            ));
        }
    };
    let mut m = serde_json::Map::new();
    m.insert(key, serde_json::Value::String(value));
    Ok(m)
}
