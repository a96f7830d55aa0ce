//! `/zone-names` (demonstration of the endpoint table): the zones of `/zones` whose code is in
//! `zone` (a comma-separated list, case-insensitive; absent: every zone).

use super::*;

/// `zone`: only these zones.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ZoneNamesParams {
    /// A zone code or a comma-separated list (case-insensitive). Absent: every zone.
    pub zone: Option<String>,
}

/// `/zone-names`: the selected zones' metadata, from the reference data.
pub struct ZoneNames;

impl EndpointDef for ZoneNames {
    type Request = Vec<String>;
    type Response = Vec<ZoneInfo>;
    const DOCS: &'static [&'static str] =
        &["The selected zones' metadata (demonstration endpoint)."];

    fn parameters() -> Vec<Parameter> {
        params_of::<ZoneNamesParams>()
    }

    fn parse(p: &QueryParams<'_>, _: &ParseContext<'_>) -> Result<Vec<String>, QueryError> {
        Ok(p.get("zone")
            .map(|z| z.split(',').map(|c| c.trim().to_uppercase()).collect())
            .unwrap_or_default())
    }

    fn answer(cache: &DataCache, codes: &Vec<String>) -> Vec<ZoneInfo> {
        let mut all = zones(cache.reference());
        if !codes.is_empty() {
            all.retain(|z| codes.iter().any(|c| c.as_str() == z.zone.as_str()));
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use crate::Endpoint;

    #[test]
    fn the_table_publishes_it() {
        let e = Endpoint::from_path("zone-names").expect("in the table");
        assert!(e.from_reference());
        let d = e.description();
        assert_eq!(d.docs.len(), 1);
        let names: Vec<&str> = d.parameters.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["zone", "format"]);
    }
}
