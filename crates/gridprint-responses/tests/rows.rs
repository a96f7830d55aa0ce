//! The row walk of the answers (`Rows`, `Answer`): every row has the header's column count, and point
//! counts and finality follow the entries.

use gridprint_core::derived::Coverage;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::Slot;
use gridprint_core::zone::ZoneCode;
use gridprint_responses::*;

/// Counts rows and checks every row has as many fields as the header.
struct Check {
    columns: usize,
    rows: usize,
}

impl RowSink for Check {
    fn points(&mut self, prefix: &[&str], values: &Values) {
        for _ in &values.0 {
            assert_eq!(prefix.len() + 2, self.columns, "{prefix:?}");
            self.rows += 1;
        }
    }
    fn row(&mut self, fields: &[&str]) {
        assert_eq!(fields.len(), self.columns, "{fields:?}");
        self.rows += 1;
    }
}

fn walk(answer: &dyn Answer) -> usize {
    let mut c = Check {
        columns: answer.columns().len(),
        rows: 0,
    };
    answer.rows(&mut c);
    c.rows
}

fn values(n: i64) -> Values {
    Values(
        (0..n)
            .map(|i| Point {
                slot: Slot(i),
                value: i as f64,
            })
            .collect(),
    )
}

#[test]
fn rows_match_columns_points_and_finality() {
    let de = ZoneCode::parse("DE").unwrap();
    let entry = |valid, n| GenerationEntry {
        valid,
        zone_status: ZoneStatus::Complete,
        production: vec![ProductionBlock {
            production_type: ProductionType::Solar,
            data_state: DataState::Official,
            datasource: "ENTSO-E".into(),
            values: values(n),
        }],
    };
    let generation = vec![GenerationResult {
        zone: de.clone(),
        unit: "MW",
        series: vec![entry(true, 3), entry(false, 2)],
    }];
    assert_eq!(walk(&generation), 5);
    assert_eq!(Answer::points(&generation), 5);
    assert!(!Answer::is_final(&generation), "one entry is not valid");

    let aggregate = Footprints::Aggregate(vec![FootprintAggregate {
        head: FootprintHead {
            footprint_type: FootprintType::Carbon,
            scope: Scope::LifeCycle,
            zone: de,
            unit: "gCO2/kWh",
            coverage: Coverage::Global,
        },
        tail: AggregateTail {
            start: "a".into(),
            end: "b".into(),
            value: 1.234,
            valid: true,
            zone_status: ZoneStatus::Complete,
            points: 4,
            slots: 4,
            aggregation_method: TIME_WEIGHTED_AVERAGE,
        },
    }]);
    assert_eq!(walk(&aggregate), 1);
    assert_eq!(aggregate.points(), 0);
    assert!(aggregate.is_final());
    assert_eq!(aggregate.columns().last(), Some(&"aggregation_method"));

    let empty: Vec<FactorResult> = Vec::new();
    assert_eq!(walk(&empty), 0);
    assert!(!Answer::is_final(&empty), "an empty answer is never final");
    assert_eq!(empty.columns().len(), 9);
}
