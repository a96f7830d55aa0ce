//! Synthetic inputs for benchmarks: deterministic generation (7 production types per zone with
//! daily and seasonal cycles), optional load, and a flow on every border, for every zone of a
//! reference set and every slot; and [`SyntheticInputs`], a store wrapper that serves them to the
//! compute while everything else (derived days, access) goes to a real store. The compute benchmark
//! and the load benchmark's data generator share it, and tests build their hand-made points with
//! [`official_generation`]. Test support only: behind the `testing` feature, which the
//! dev-dependencies of its users enable.

use gridprint_core::derived::DerivedDay;
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_store::{
    AccessStore, DerivedStore, GrantRow, InputStore, LeaderLease, Result, Store, StoredInput,
    TokenRecord, UpsertSummary,
};

const TYPES: [ProductionType; 7] = [
    ProductionType::Nuclear,
    ProductionType::Coal,
    ProductionType::Gas,
    ProductionType::HydroRiver,
    ProductionType::WindOnshore,
    ProductionType::Solar,
    ProductionType::Biomass,
];

fn lcg(x: u64) -> u64 {
    x.wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407)
}

fn unit(r: u64) -> f64 {
    (r >> 40) as f64 / (1u64 << 24) as f64
}

/// An official ENTSO-E point: what every synthetic input is.
pub fn official(key: InputKey, slot: Slot, mw: f64) -> InputPoint {
    InputPoint {
        key,
        slot,
        mw,
        state: DataState::Official,
        datasource: "ENTSO-E".into(),
    }
}

/// An official ENTSO-E generation point of `zone` (a valid zone code), for tests.
pub fn official_generation(
    zone: &str,
    production_type: ProductionType,
    slot: Slot,
    mw: f64,
) -> InputPoint {
    let zone = ZoneCode::parse(zone).expect("a valid zone code");
    let key = InputKey::Generation {
        zone,
        production_type,
    };
    official(key, slot, mw)
}

/// The synthetic inputs of one slot (deterministic in the slot).
pub fn inputs_of_slot(reference: &ReferenceData, slot: Slot, with_load: bool) -> Vec<InputPoint> {
    let zones = &reference.zones;
    let day_phase = (slot.index_in_day() as f64 / 96.0 * std::f64::consts::TAU).sin();
    let season = 1.0 + 0.2 * (slot.day() as f64 / 365.25 * std::f64::consts::TAU).cos();
    let mut r = lcg(slot.0 as u64);
    let mut out = Vec::with_capacity(zones.len() * 9 + 100);
    let point = |key, mw| official(key, slot, mw);
    for i in 0..zones.len() {
        let mut total = 0.0;
        for (k, pt) in TYPES.iter().enumerate() {
            r = lcg(r);
            let base = 200.0 + 100.0 * ((i * 7 + k * 3) % 11) as f64;
            let mw = match pt {
                ProductionType::Solar => (base * 2.0 * day_phase).max(0.0),
                _ => base * season * (0.8 + 0.4 * unit(r)),
            };
            total += mw;
            out.push(point(
                InputKey::Generation {
                    zone: zones.code(i).clone(),
                    production_type: *pt,
                },
                mw,
            ));
        }
        if with_load {
            out.push(point(
                InputKey::Load {
                    zone: zones.code(i).clone(),
                },
                total * 0.95,
            ));
        }
    }
    for &(a, b) in zones.borders() {
        r = lcg(r);
        let (from, to) = if r & 1 == 0 { (a, b) } else { (b, a) };
        out.push(point(
            InputKey::Flow {
                from: zones.code(from).clone(),
                to: zones.code(to).clone(),
            },
            50.0 + 300.0 * unit(r),
        ));
    }
    out
}

/// Serves synthetic inputs to the compute; everything else goes to the real store inside.
pub struct SyntheticInputs {
    /// The real store (derived days, access); its own inputs are not read.
    pub inner: Box<dyn Store>,
    pub reference: ReferenceData,
}

impl InputStore for SyntheticInputs {
    fn upsert_input_chunks(
        &self,
        chunks: &mut dyn Iterator<Item = Result<Vec<InputPoint>>>,
        at: i64,
    ) -> Result<UpsertSummary> {
        self.inner.upsert_input_chunks(chunks, at)
    }
    fn inputs_in_range(&self, range: SlotRange) -> Result<Vec<StoredInput>> {
        Ok(range
            .iter()
            .flat_map(|slot| inputs_of_slot(&self.reference, slot, false))
            .map(|point| StoredInput {
                point,
                updated_at: 0,
            })
            .collect())
    }
    fn input_extent(&self) -> Result<Option<SlotRange>> {
        Ok(None)
    }
}

impl DerivedStore for SyntheticInputs {
    fn derived_days(&self, days: std::ops::Range<i64>) -> Result<Vec<DerivedDay>> {
        self.inner.derived_days(days)
    }
    fn begin_staging(&self) -> Result<gridprint_store::StagingClaim> {
        self.inner.begin_staging()
    }
    fn stage_derived_days(&self, run: i64, days: &[DerivedDay]) -> Result<()> {
        self.inner.stage_derived_days(run, days)
    }
    fn commit_staged(&self, run: i64) -> Result<usize> {
        self.inner.commit_staged(run)
    }
    fn discard_staged(&self, run: i64) -> Result<()> {
        self.inner.discard_staged(run)
    }
    fn data_version(&self) -> Result<i64> {
        self.inner.data_version()
    }
    fn derived_changes(&self, since: i64) -> Result<gridprint_store::DerivedChanges> {
        self.inner.derived_changes(since)
    }
}

impl AccessStore for SyntheticInputs {
    fn grant(&self, e: &str, c: Option<&str>, n: i64) -> Result<bool> {
        self.inner.grant(e, c, n)
    }
    fn set_registration_code(&self, e: &str, c: Option<&str>) -> Result<bool> {
        self.inner.set_registration_code(e, c)
    }
    fn registration_code(&self, e: &str) -> Result<Option<Option<String>>> {
        self.inner.registration_code(e)
    }
    fn revoke(&self, e: &str) -> Result<bool> {
        self.inner.revoke(e)
    }
    fn reset(&self, e: &str) -> Result<bool> {
        self.inner.reset(e)
    }
    fn list_grants(&self) -> Result<Vec<GrantRow>> {
        self.inner.list_grants()
    }
    fn has_grant(&self, e: &str) -> Result<bool> {
        self.inner.has_grant(e)
    }
    fn register(&self, e: &str, h: &str, n: i64) -> Result<()> {
        self.inner.register(e, h, n)
    }
    fn password_hash(&self, e: &str) -> Result<Option<String>> {
        self.inner.password_hash(e)
    }
    fn insert_token(&self, t: &TokenRecord) -> Result<()> {
        self.inner.insert_token(t)
    }
    fn find_token(&self, h: &str) -> Result<Option<TokenRecord>> {
        self.inner.find_token(h)
    }
}

/// No forecast archive (the defaults: nothing kept).
impl gridprint_store::ForecastStore for SyntheticInputs {}

impl Store for SyntheticInputs {
    fn try_lead(&self) -> Result<Option<Box<dyn LeaderLease>>> {
        self.inner.try_lead()
    }
    fn ping(&self) -> Result<()> {
        self.inner.ping()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}
