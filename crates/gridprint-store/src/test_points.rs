//! Input points for the store's own tests and its conformance suite (feature `testing`): one
//! builder per kind of key, so a test names a point in one line. Never in a production build.

use gridprint_core::inputs::{DATASOURCE_ASSUMED_ZERO, InputKey, InputPoint};
use gridprint_core::quality::DataState;
use gridprint_core::slot::Slot;
use gridprint_core::zone::ZoneCode;

pub(crate) fn z(s: &str) -> ZoneCode {
    ZoneCode::parse(s).unwrap()
}

/// A flow point `from` → `to`.
pub(crate) fn flow_point(
    from: &str,
    to: &str,
    slot: i64,
    mw: f64,
    state: DataState,
    ds: &str,
) -> InputPoint {
    InputPoint {
        key: InputKey::Flow {
            from: z(from),
            to: z(to),
        },
        slot: Slot(slot),
        mw,
        state,
        datasource: ds.to_string(),
    }
}

/// A flow `from` → `to` assumed 0 MW, as a compute stores it.
pub(crate) fn assumed_point(from: &str, to: &str, slot: i64) -> InputPoint {
    flow_point(
        from,
        to,
        slot,
        0.0,
        DataState::Estimated,
        DATASOURCE_ASSUMED_ZERO,
    )
}
