//! [`QueryResponse`]: any endpoint's answer as the HTTP layer holds it — one of the response types of
//! `gridprint-responses` behind its [`Answer`] trait, rendered as JSON or as long-format CSV
//! ([`crate::csv`]), with its point count and finality (for `ETag` / `Cache-Control`).

use gridprint_responses::Answer;

/// Any endpoint's answer (a top-level JSON array).
#[derive(Debug)]
pub struct QueryResponse(Box<dyn Answer>);

impl<A: Answer + 'static> From<A> for QueryResponse {
    fn from(answer: A) -> QueryResponse {
        QueryResponse(Box::new(answer))
    }
}

impl QueryResponse {
    /// The answer behind the wrapper.
    pub fn answer(&self) -> &dyn Answer {
        &*self.0
    }

    /// The JSON body.
    pub fn to_json(&self) -> Vec<u8> {
        self.0.to_json()
    }

    /// The long-format CSV body (see [`crate::csv`]).
    pub fn to_csv(&self) -> Vec<u8> {
        crate::csv::to_csv(self.answer())
    }

    /// Number of points in the answer (to size the output buffer).
    pub fn points(&self) -> usize {
        self.0.points()
    }

    /// Number of top-level items.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the answer is `[]`.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the answer is non-empty and every point in it is final (`valid=true`), so the HTTP
    /// layer may serve it with an `ETag` and a long `Cache-Control`. Zones and factors come from the
    /// reference data and are final.
    pub fn is_final(&self) -> bool {
        self.0.is_final()
    }
}
