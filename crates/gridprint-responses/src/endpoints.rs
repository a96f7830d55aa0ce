//! The `/v1` endpoint table, the one declaration server and client share: for each data endpoint
//! its name, the server's definition and the client's request (named, resolved by each side), its
//! paths with the client method of each, and its answer type (with the series and aggregate types
//! where the endpoint supports `aggregate=true`).
//!
//! [`endpoint_table!`](crate::endpoint_table) hands the table to a macro of the consuming crate:
//! gridprint-query derives `Endpoint` (variants, paths, OpenAPI description, dispatch, and a check
//! that each definition answers the declared type), gridprint-client its typed methods and
//! `ApiRequest::path`. `/status` is not in the table: the HTTP layer answers it.

/// Calls `$m! { … }` with the endpoint table, one entry per endpoint, in the order of the OpenAPI
/// document:
///
/// ```text
/// /// Doc of the endpoint (the server's `Endpoint` variant and the client's first method).
/// Name {
///     server: DefType[, reference];     // the EndpointDef in gridprint_query::endpoints;
///                                       // `reference`: answered from the reference data alone
///     client: RequestType[, unit];      // the client's request struct; `unit`: the method
///                                       // takes no request (a unit struct)
///     paths: [method: "path", …];       // under /v1; the first is the request's path
///     answer: Type;                     // what the server answers (any query)
///     series: Type;                     // with `aggregate`: the answer without aggregate=true
///     aggregate: method -> Type;        // the answer with aggregate=true
/// }
/// ```
///
/// Response types are spelled with `$crate::` so they resolve in any consuming crate; the server's
/// and client's type names are resolved by the consumer in its own scope. Adding an endpoint adds
/// one entry here (see docs/architecture.md, "Adding an endpoint").
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
                client: GenerationRequest;
                paths: [generation: "generation"];
                answer: Vec<$crate::GenerationResult>;
            }
            /// `/load`: MW consumed.
            Load {
                server: Load;
                client: LoadRequest;
                paths: [load: "load"];
                answer: Vec<$crate::LoadResult>;
            }
            /// `/imports`: MW received per source zone.
            Imports {
                server: Imports;
                client: ImportsRequest;
                paths: [imports: "imports"];
                answer: Vec<$crate::ImportsResult>;
            }
            /// `/exports`: MW sent per destination zone.
            Exports {
                server: Exports;
                client: ExportsRequest;
                paths: [exports: "exports"];
                answer: Vec<$crate::ExportsResult>;
            }
            /// `/mix`: MW per production type consumed after flow tracing.
            Mix {
                server: Mix;
                client: MixRequest;
                paths: [mix: "mix"];
                answer: Vec<$crate::MixResult>;
            }
            /// `/footprints`: carbon and water footprints as series.
            Footprints {
                server: FootprintsEndpoint;
                client: FootprintsRequest;
                paths: [footprints: "footprints"];
                answer: $crate::Footprints;
                series: Vec<$crate::FootprintResult>;
                aggregate: footprints_aggregate -> Vec<$crate::FootprintAggregate>;
            }
            /// `/impacts`: water impact series.
            Impacts {
                server: ImpactsEndpoint;
                client: ImpactsRequest;
                paths: [impacts: "impacts"];
                answer: $crate::Impacts;
                series: Vec<$crate::ImpactResult>;
                aggregate: impacts_aggregate -> Vec<$crate::ImpactAggregate>;
            }
            /// `/green-score` (same answer as `/environmental-score`): 0–100 series.
            Score {
                server: Score;
                client: ScoreRequest;
                paths: [green_score: "green-score", environmental_score: "environmental-score"];
                answer: $crate::Scores;
                series: Vec<$crate::ScoreResult>;
                aggregate: green_score_aggregate -> Vec<$crate::ScoreAggregate>;
            }
            /// `/flow-share`: % of generation consumed per destination.
            FlowShare {
                server: FlowShare;
                client: FlowShareRequest;
                paths: [flow_share: "flow-share"];
                answer: Vec<$crate::FlowShareResult>;
            }
            /// `/mix-share`: % of consumption per origin.
            MixShare {
                server: MixShare;
                client: MixShareRequest;
                paths: [mix_share: "mix-share"];
                answer: Vec<$crate::MixShareResult>;
            }
            /// `/footprint-share`: footprint parts per source zone.
            FootprintShare {
                server: FootprintShare;
                client: FootprintShareRequest;
                paths: [footprint_share: "footprint-share"];
                answer: Vec<$crate::FootprintShareResult>;
            }
            /// `/impact-share`: water-impact parts per source zone.
            ImpactShare {
                server: ImpactShare;
                client: ImpactShareRequest;
                paths: [impact_share: "impact-share"];
                answer: Vec<$crate::ImpactShareResult>;
            }
            /// `/factors`: factors per production type and scope.
            Factors {
                server: FactorsEndpoint, reference;
                client: FactorsRequest;
                paths: [factors: "factors"];
                answer: $crate::Factors;
                series: Vec<$crate::FactorResult>;
                aggregate: factors_aggregate -> Vec<$crate::FactorAggregate>;
            }
            /// `/best-window`: the best placements of a job over zones and the forecast, best
            /// first.
            BestWindow {
                server: BestWindowEndpoint;
                client: BestWindowRequest;
                paths: [best_window: "best-window"];
                answer: Vec<$crate::BestWindow>;
            }
            /// `/availability`: which zones and time ranges hold data: the time ranges held per
            /// zone, input and for the outputs, as runs of one state, and the forecast's end.
            Availability {
                server: Availability;
                client: AvailabilityRequest;
                paths: [availability: "availability"];
                answer: Vec<$crate::AvailabilityResult>;
            }
        }
    };
}
