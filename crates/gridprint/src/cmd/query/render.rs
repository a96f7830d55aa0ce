//! The `--format table` output of `gridprint query`: any JSON answer of the interface flattened to
//! one row per point ([`Table::from_json`]: scalar fields inherited by nested objects, `values`
//! expanded to `timestamp` and `value`), then printed as aligned columns ([`Table::render`]:
//! descriptive columns first, numbers right-aligned).
//!
//! `--format csv` and `--format json` print the server's answer verbatim: see `run` in [`super`].

use serde_json::Value;

/// Descriptive columns placed first, in this order (the others follow alphabetically).
const HEAD: &[&str] = &[
    "zone",
    "footprint_type",
    "impact_type",
    "factor_type",
    "production_type",
    "scope",
    "coverage",
    "source",
    "destination",
    "origin",
];

/// Columns placed after the descriptive ones, in this order.
const TAIL: &[&str] = &[
    "timestamp",
    "start",
    "end",
    "value",
    "unit",
    "zone_status",
    "valid",
    "data_state",
    "datasource",
    "aggregation_method",
];

/// A JSON answer flattened to one row per point.
#[derive(Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some(String::new()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        Value::Array(a) if a.iter().all(|x| !x.is_array() && !x.is_object()) => {
            Some(a.iter().filter_map(scalar).collect::<Vec<_>>().join(","))
        }
        _ => None,
    }
}

/// `[[timestamp, number], …]`.
fn is_point_list(v: &Value) -> bool {
    matches!(v, Value::Array(a) if a.iter().all(|p| matches!(p, Value::Array(x) if x.len() == 2)))
}

type Row = Vec<(String, String)>;

/// Collects rows: the object's scalar fields are inherited by the rows of its nested objects;
/// `values` produces one row per point; an object with neither is one row.
fn walk(obj: &serde_json::Map<String, Value>, inherited: &Row, out: &mut Vec<Row>) {
    let mut row = inherited.clone();
    for (k, v) in obj {
        if k == "values" && is_point_list(v) {
            continue;
        }
        if let Some(s) = scalar(v) {
            row.push((k.clone(), s));
        }
    }
    let mut produced = false;
    if let Some(Value::Array(points)) = obj.get("values").filter(|v| is_point_list(v)) {
        produced = true;
        for p in points {
            let mut r = row.clone();
            r.push(("timestamp".into(), p[0].as_str().unwrap_or_default().into()));
            r.push(("value".into(), scalar(&p[1]).unwrap_or_default()));
            out.push(r);
        }
    }
    for v in obj.values() {
        if let Value::Array(items) = v
            && !items.is_empty()
            && items.iter().all(Value::is_object)
        {
            produced = true;
            for item in items {
                if let Value::Object(m) = item {
                    walk(m, &row, out);
                }
            }
        }
    }
    // A result whose series (or values) is empty has no point to show.
    if !produced && !obj.contains_key("series") && !obj.contains_key("values") {
        out.push(row);
    }
}

impl Table {
    /// Flattens any answer of the interface (an array of result objects, or the status object).
    pub fn from_json(v: &Value) -> Table {
        let mut rows: Vec<Row> = Vec::new();
        match v {
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::Object(m) => walk(m, &Vec::new(), &mut rows),
                        other => {
                            rows.push(vec![("value".into(), scalar(other).unwrap_or_default())])
                        }
                    }
                }
            }
            Value::Object(m) => walk(m, &Vec::new(), &mut rows),
            other => rows.push(vec![("value".into(), scalar(other).unwrap_or_default())]),
        }
        let mut columns: Vec<String> = Vec::new();
        let mut add = |c: &str| {
            if !columns.iter().any(|x| x == c) {
                columns.push(c.to_string());
            }
        };
        for h in HEAD {
            if rows.iter().flatten().any(|(k, _)| k == h) {
                add(h);
            }
        }
        let mut others: Vec<&str> = rows
            .iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .filter(|k| !TAIL.contains(k) && !HEAD.contains(k))
            .collect();
        others.sort_unstable();
        for k in others {
            add(k);
        }
        for t in TAIL {
            if rows.iter().flatten().any(|(k, _)| k == t) {
                add(t);
            }
        }
        let rows = rows
            .into_iter()
            .map(|r| {
                columns
                    .iter()
                    .map(|c| {
                        r.iter()
                            .rev()
                            .find(|(k, _)| k == c)
                            .map(|(_, v)| v.clone())
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .collect();
        Table { columns, rows }
    }

    /// Aligned columns separated by two spaces; numeric columns right-aligned.
    pub fn render(&self) -> String {
        let n = self.columns.len();
        let mut width: Vec<usize> = self.columns.iter().map(|c| c.chars().count()).collect();
        let mut numeric = vec![true; n];
        for r in &self.rows {
            for (i, cell) in r.iter().enumerate() {
                width[i] = width[i].max(cell.chars().count());
                if !cell.is_empty() && cell.parse::<f64>().is_err() {
                    numeric[i] = false;
                }
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let pad = width[i].saturating_sub(c.chars().count());
                let last = i + 1 == n;
                if i > 0 {
                    s.push_str("  ");
                }
                if numeric[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if !last {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            s.push('\n');
            s
        };
        let mut out = line(&self.columns);
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footprints_flatten_to_one_row_per_point() {
        let v: Value = serde_json::from_str(
            r#"[{"footprint_type":"carbon","scope":"life-cycle","zone":"DE","unit":"gCO2/kWh","coverage":"global",
                "series":[{"valid":true,"zone_status":"complete","values":[["2024-06-15T00:00:00Z",301.5],["2024-06-15T00:15:00Z",299.0]]},
                          {"valid":false,"zone_status":"preview","values":[["2024-06-15T00:30:00Z",12.25]]}]}]"#,
        )
        .unwrap();
        let t = Table::from_json(&v);
        assert_eq!(
            t.columns,
            [
                "zone",
                "footprint_type",
                "scope",
                "coverage",
                "timestamp",
                "value",
                "unit",
                "zone_status",
                "valid"
            ]
        );
        assert_eq!(t.rows.len(), 3);
        assert_eq!(
            t.rows[2],
            [
                "DE",
                "carbon",
                "life-cycle",
                "global",
                "2024-06-15T00:30:00Z",
                "12.25",
                "gCO2/kWh",
                "preview",
                "false"
            ]
        );
        let text = t.render();
        assert!(text.starts_with("zone  footprint_type  scope"), "{text}");
        assert!(text.contains(" 301.5  gCO2/kWh"), "{text}");
    }

    #[test]
    fn nested_blocks_aggregates_and_status() {
        let v: Value = serde_json::from_str(
            r#"[{"zone":"NL","unit":"MW","series":[{"valid":true,"zone_status":"complete","production":[
                {"production_type":"solar","data_state":"official","datasource":"ENTSO-E","values":[["2024-09-02T00:00:00Z",0.0]]}]}]}]"#,
        )
        .unwrap();
        let t = Table::from_json(&v);
        assert_eq!(t.rows.len(), 1);
        assert!(t.columns.contains(&"data_state".to_string()));
        let v: Value = serde_json::from_str(
            r#"[{"scope":"operational","zone":"DE","coverage":"global","start":"2024-06-15T00:00:00Z","end":"2024-06-16T00:00:00Z",
                "value":55.1,"valid":true,"zone_status":"complete","aggregation_method":"time-weighted-average"}]"#,
        )
        .unwrap();
        assert_eq!(Table::from_json(&v).rows.len(), 1);
        let v: Value = serde_json::from_str(
            r#"{"storage":"up","entso-e":"unknown","elexon":"unknown","epias":"unknown"}"#,
        )
        .unwrap();
        let t = Table::from_json(&v);
        assert_eq!(t.columns, ["elexon", "entso-e", "epias", "storage"]);
        assert_eq!(t.rows, [["unknown", "unknown", "unknown", "up"]]);
        let v: Value =
            serde_json::from_str(r#"[{"zone":"XX","provider":"ENTSO-E","neighbours":[]}]"#)
                .unwrap();
        assert_eq!(Table::from_json(&v).rows, [["XX", "", "ENTSO-E"]]);
        assert!(Table::from_json(&Value::Array(vec![])).rows.is_empty());
        let v: Value = serde_json::from_str(r#"[{"zone":"XX","unit":"MW","series":[]}]"#).unwrap();
        assert!(Table::from_json(&v).rows.is_empty());
    }

    #[test]
    fn availability_prints_one_row_per_run() {
        let v: Value = serde_json::from_str(
            r#"[{"zone":"DE","inputs":[
                {"input":"generation","runs":[
                    {"start":"2024-06-15T00:00:00Z","end":"2024-06-15T22:00:00Z","state":"official"},
                    {"start":"2024-06-15T22:00:00Z","end":"2024-06-16T00:00:00Z","state":"estimated"}]},
                {"input":"flow","from":"AT","to":"DE","runs":[
                    {"start":"2024-06-15T00:00:00Z","end":"2024-06-16T00:00:00Z","state":"estimated"}]}],
                "outputs":[{"start":"2024-06-15T00:00:00Z","end":"2024-06-16T00:00:00Z","state":"preview"}],
                "forecast_end":null}]"#,
        )
        .unwrap();
        let t = Table::from_json(&v);
        assert_eq!(t.rows.len(), 4, "{}", t.render());
        for c in ["zone", "input", "from", "to", "start", "end", "state"] {
            assert!(t.columns.contains(&c.to_string()), "{c}: {:?}", t.columns);
        }
        let col = |name: &str| t.columns.iter().position(|c| c == name).unwrap();
        let states: Vec<&str> = t.rows.iter().map(|r| r[col("state")].as_str()).collect();
        assert_eq!(states, ["official", "estimated", "estimated", "preview"]);
        assert_eq!(t.rows[2][col("from")], "AT");
    }
}
