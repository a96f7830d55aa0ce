//! How an answer appears as the body of a `200` in the OpenAPI document. [`BodySchema`] gives the
//! body's schema (an array of `$ref` for list answers, one `$ref` for the series-or-aggregates
//! answers) and the named schemas it points to, so the HTTP layer describes any endpoint from its
//! response type alone.

use crate::items::SeriesOrAggregates;
use utoipa::ToSchema;
use utoipa::openapi::schema::{ArrayBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};

/// Named schemas (the `components.schemas` entries a body refers to).
pub type NamedSchemas = Vec<(String, RefOr<Schema>)>;

/// An answer type as an OpenAPI response body.
pub trait BodySchema {
    /// The schema of the body.
    fn body_schema() -> RefOr<Schema>;
    /// Adds the named schemas the body refers to (the item type and what it points to).
    fn named_schemas(out: &mut NamedSchemas);
}

fn named<T: ToSchema>(out: &mut NamedSchemas) {
    out.push((T::name().into(), T::schema()));
    T::schemas(out);
}

impl<T: ToSchema> BodySchema for Vec<T> {
    fn body_schema() -> RefOr<Schema> {
        ArrayBuilder::new()
            .items(Ref::from_schema_name(T::name()))
            .into()
    }

    fn named_schemas(out: &mut NamedSchemas) {
        named::<T>(out);
    }
}

/// Series-or-aggregates answers are one `$ref` to their `anyOf` schema.
impl<S, A> BodySchema for SeriesOrAggregates<S, A>
where
    SeriesOrAggregates<S, A>: ToSchema,
{
    fn body_schema() -> RefOr<Schema> {
        Ref::from_schema_name(Self::name()).into()
    }

    fn named_schemas(out: &mut NamedSchemas) {
        named::<Self>(out);
    }
}
