//! The `/v1` endpoint table, the one declaration server and client share: for each data endpoint
//! its name, the server's definition, the client's request (its struct name and fields), its paths
//! with the client method of each, and its answer type (with the series and aggregate types where
//! the endpoint supports `aggregate=true`).
//!
//! [`endpoint_table!`](crate::endpoint_table) hands the table to a macro of the consuming crate:
//! gridprint-query derives `Endpoint` (variants, paths, OpenAPI description, dispatch, and a check
//! that each definition answers the declared type), gridprint-client its request structs (with
//! their query parameters), its typed methods and `ApiRequest::path`. `/status` is not in the table:
//! the HTTP layer answers it.

/// Calls `$m! { … }` with the endpoint table, one entry per endpoint, in the order of the OpenAPI
/// document:
///
/// ```text
/// /// Doc of the endpoint (the server's `Endpoint` variant, the client's request struct and first
/// /// method).
/// Name {
///     server: DefPath[, reference];     // the EndpointDef, a path under gridprint_query::endpoints
///                                       // (`Load`, or `module::Def` for a `pub mod`);
///                                       // `reference`: answered from the reference data alone
///     client: RequestType { fields };   // the client's request struct: public fields, each an
///                                       // `Option` (or a required `String`), in the order of
///                                       // the query they become (see gridprint_client::request)
///     client: RequestType, unit;        // or: no parameters (a unit struct; the method takes none)
///     paths: [method: "path", …];       // under /v1; the first is the request's path
///     answer: Type;                     // what the server answers (any query)
///     series: Type;                     // with `aggregate`: the answer without aggregate=true
///     aggregate: method -> Type;        // the answer with aggregate=true
/// }
/// ```
///
/// Response types are spelled with `$crate::` so they resolve in any consuming crate; the server's
/// and client's type names (the fields' types: `Location`, `TimeWindow`, `FootprintType`, …) are
/// resolved by the consumer in its own scope. Adding an endpoint adds one entry here and its module
/// in gridprint-query (see docs/architecture.md, "Adding an endpoint").
#[macro_export]
macro_rules! endpoint_table {
    ($m:ident) => {
        $m! {
            /// `/zones`: every zone with its metadata and neighbours, sorted by zone.
            Zones {
                server: Zones, reference;
                client: ZonesRequest, unit;
                paths: [zones: "zones"];
                answer: Vec<$crate::ZoneInfo>;
            }
            /// `/generation`: MW per production type.
            Generation {
                server: Generation;
                client: GenerationRequest {
                    location: Option<Location>,
                    window: Option<TimeWindow>,
                    /// One type only (pumped storage is refused as a filter by the server).
                    production_type: Option<ProductionType>,
                };
                paths: [generation: "generation"];
                answer: Vec<$crate::GenerationResult>;
            }
            /// `/load`: MW consumed.
            Load {
                server: Load;
                client: LoadRequest {
                    location: Option<Location>,
                    window: Option<TimeWindow>,
                };
                paths: [load: "load"];
                answer: Vec<$crate::LoadResult>;
            }
            /// `/imports`: MW received per source zone.
            Imports {
                server: Imports;
                client: ImportsRequest {
                    location: Option<Location>,
                    /// Only these sources (`source_zone` / `source_lat` + `source_lon`).
                    source: Option<Location>,
                    window: Option<TimeWindow>,
                };
                paths: [imports: "imports"];
                answer: Vec<$crate::ImportsResult>;
            }
            /// `/exports`: MW sent per destination zone.
            Exports {
                server: Exports;
                client: ExportsRequest {
                    location: Option<Location>,
                    /// Only these destinations (`destination_zone` / `destination_lat` +
                    /// `destination_lon`).
                    destination: Option<Location>,
                    window: Option<TimeWindow>,
                };
                paths: [exports: "exports"];
                answer: Vec<$crate::ExportsResult>;
            }
            /// `/mix`: MW per production type consumed after flow tracing.
            Mix {
                server: Mix;
                client: MixRequest {
                    location: Option<Location>,
                    window: Option<TimeWindow>,
                    production_type: Option<ProductionType>,
                };
                paths: [mix: "mix"];
                answer: Vec<$crate::MixResult>;
            }
            /// `/footprints`: carbon and water footprints as series.
            Footprints {
                server: FootprintsEndpoint;
                client: FootprintsRequest {
                    location: Option<Location>,
                    window: Option<TimeWindow>,
                    /// Carbon or water; `None`: both.
                    footprint_type: Option<FootprintType>,
                    /// `None`: life-cycle.
                    scope: Option<Scope>,
                    /// `Some(false)`: local footprints (the zone's own generation only); `None`:
                    /// global.
                    use_global: Option<bool>,
                };
                paths: [footprints: "footprints"];
                answer: $crate::Footprints;
                series: Vec<$crate::FootprintResult>;
                aggregate: footprints_aggregate -> Vec<$crate::FootprintAggregate>;
            }
            /// `/impacts`: water impact series.
            Impacts {
                server: ImpactsEndpoint;
                client: ImpactsRequest {
                    location: Option<Location>,
                    window: Option<TimeWindow>,
                    /// Only water exists; `None` leaves it to the server.
                    impact_type: Option<ImpactType>,
                    /// Only operational is accepted by the server.
                    scope: Option<Scope>,
                    use_global: Option<bool>,
                };
                paths: [impacts: "impacts"];
                answer: $crate::Impacts;
                series: Vec<$crate::ImpactResult>;
                aggregate: impacts_aggregate -> Vec<$crate::ImpactAggregate>;
            }
            /// `/green-score` (same answer as `/environmental-score`): 0–100 series.
            Score {
                server: Score;
                client: ScoreRequest {
                    location: Option<Location>,
                    window: Option<TimeWindow>,
                    /// Only operational is accepted by the server.
                    scope: Option<Scope>,
                    use_global: Option<bool>,
                };
                paths: [green_score: "green-score", environmental_score: "environmental-score"];
                answer: $crate::Scores;
                series: Vec<$crate::ScoreResult>;
                aggregate: green_score_aggregate -> Vec<$crate::ScoreAggregate>;
            }
            /// `/flow-share`: % of generation consumed per destination.
            FlowShare {
                server: FlowShare;
                client: FlowShareRequest {
                    location: Option<Location>,
                    destination: Option<Location>,
                    window: Option<TimeWindow>,
                };
                paths: [flow_share: "flow-share"];
                answer: Vec<$crate::FlowShareResult>;
            }
            /// `/mix-share`: % of consumption per origin.
            MixShare {
                server: MixShare;
                client: MixShareRequest {
                    location: Option<Location>,
                    origin: Option<Location>,
                    window: Option<TimeWindow>,
                };
                paths: [mix_share: "mix-share"];
                answer: Vec<$crate::MixShareResult>;
            }
            /// `/footprint-share`: footprint parts per source zone.
            FootprintShare {
                server: FootprintShare;
                client: FootprintShareRequest {
                    location: Option<Location>,
                    source: Option<Location>,
                    window: Option<TimeWindow>,
                    footprint_type: Option<FootprintType>,
                    scope: Option<Scope>,
                };
                paths: [footprint_share: "footprint-share"];
                answer: Vec<$crate::FootprintShareResult>;
            }
            /// `/impact-share`: water-impact parts per source zone.
            ImpactShare {
                server: ImpactShare;
                client: ImpactShareRequest {
                    location: Option<Location>,
                    source: Option<Location>,
                    window: Option<TimeWindow>,
                    impact_type: Option<ImpactType>,
                    scope: Option<Scope>,
                };
                paths: [impact_share: "impact-share"];
                answer: Vec<$crate::ImpactShareResult>;
            }
            /// `/factors`: factors per production type and scope.
            Factors {
                server: FactorsEndpoint, reference;
                client: FactorsRequest {
                    window: Option<TimeWindow>,
                    factor_type: Option<FootprintType>,
                    /// `None`: both scopes.
                    scope: Option<Scope>,
                    /// `None`: every type (pumped storage is accepted here).
                    production_type: Option<ProductionType>,
                };
                paths: [factors: "factors"];
                answer: $crate::Factors;
                series: Vec<$crate::FactorResult>;
                aggregate: factors_aggregate -> Vec<$crate::FactorAggregate>;
            }
            /// `/best-window`: the best placements of a job over zones and the forecast, best
            /// first.
            BestWindow {
                server: BestWindowEndpoint;
                client: BestWindowRequest {
                    location: Option<Location>,
                    /// Whole minutes (`"120"`) or ISO 8601 (`"PT2H"`); the server rounds up to
                    /// whole slots.
                    duration: String,
                    /// `None`: the current slot.
                    start: Option<OffsetDateTime>,
                    /// `None`: the end of the data (the forecast's end).
                    end: Option<OffsetDateTime>,
                    /// `None`: footprint.
                    metric: Option<Metric>,
                    /// With the footprint metric; `None`: carbon.
                    footprint_type: Option<FootprintType>,
                    scope: Option<Scope>,
                    use_global: Option<bool>,
                    /// How many placements (1–100); `None`: 3.
                    n: Option<u32>,
                };
                paths: [best_window: "best-window"];
                answer: Vec<$crate::BestWindow>;
            }
            /// `/availability`: which zones and time ranges hold data: the time ranges held per
            /// zone, input and for the outputs, as runs of one state, and the forecast's end.
            Availability {
                server: Availability;
                client: AvailabilityRequest {
                    location: Option<Location>,
                    /// `None`: everything held.
                    window: Option<TimeWindow>,
                };
                paths: [availability: "availability"];
                answer: Vec<$crate::AvailabilityResult>;
            }
        }
    };
}
