//! The typed endpoint methods of [`Client`] and the path of each request struct, derived from the
//! endpoint table the server uses too ([`gridprint_responses::endpoint_table`]): per endpoint its
//! request struct gets [`ApiRequest`] (the table's first path; its query parameters come from
//! [`crate::request`], which also declares the struct from the table) and [`Aggregatable`] where the endpoint supports `aggregate=true`, and the
//! client one method per path (returning the table's answer type) plus the `_aggregate` method.
//! A new table entry thus gives the client its request struct and typed methods.

use crate::request::*;
use crate::{Client, Result};

/// Reads the endpoint table (see [`gridprint_responses::endpoint_table`]) into client code; the
/// server's parts (`server:`, `answer:` of a series-or-aggregates endpoint) are not used here.
macro_rules! typed_methods {
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            server: $($server:ident)::+ $(, $reference:ident)?;
            client: $request:ident $(, $unit:ident)? $({ $($fields:tt)* })?;
            paths: $paths:tt;
            answer: $answer:ty;
            $($aggregate:tt)*
        }
    )*) => {$(
        typed_methods!(@endpoint [$(#[$doc])*] $request $(, $unit)?; $paths; ($answer) $($aggregate)*);
    )*};
    // Without aggregate: the series methods answer the table's `answer`.
    (@endpoint $docs:tt $request:ident $(, $unit:ident)?; $paths:tt; ($answer:ty)) => {
        typed_methods!(@paths $docs $request $(, $unit)?; $paths; $answer);
    };
    // With aggregate: the series methods answer `series`; `aggregate=true` the aggregates.
    (@endpoint $docs:tt $request:ident; $paths:tt; ($answer:ty)
        series: $series:ty; aggregate: $agg_method:ident -> $agg:ty;) => {
        typed_methods!(@paths $docs $request; $paths; $series);

        impl Aggregatable for $request {}

        impl Client {
            typed_methods!(@aggregate $request; $paths; $agg_method $agg);
        }
    };
    (@aggregate $request:ident; [$first:ident: $path:literal $($rest:tt)*]; $agg_method:ident $agg:ty) => {
        #[doc = concat!(
            "`/", $path, "?aggregate=true`: one time-weighted average per item over the window \
             (start and end required)."
        )]
        pub async fn $agg_method(&self, r: &$request) -> Result<$agg> {
            self.get(&Aggregate(r)).await
        }
    };
    // The request's path is the first; the first method's doc is the entry's.
    (@paths [$($doc:tt)*] $request:ident $(, $unit:ident)?;
        [$first:ident: $first_path:literal $(, $method:ident: $path:literal)*]; $ret:ty) => {
        impl ApiRequest for $request {
            fn path(&self) -> &'static str {
                $first_path
            }
            fn query(&self) -> Vec<(String, String)> {
                QueryPairs::pairs(self)
            }
        }

        impl Client {
            typed_methods!(@first [$($doc)*] $first $request $(, $unit)?; $ret);
            $(
                #[doc = concat!(
                    "`/", $path, "`: the same answer as `/", $first_path, "` ([`Client::",
                    stringify!($first), "`]), under its other name."
                )]
                pub async fn $method(&self, r: &$request) -> Result<$ret> {
                    self.get_at($path, &r.query()).await
                }
            )*
        }
    };
    (@first [$($doc:tt)*] $method:ident $request:ident, unit; $ret:ty) => {
        $($doc)*
        pub async fn $method(&self) -> Result<$ret> {
            self.get(&$request).await
        }
    };
    (@first [$($doc:tt)*] $method:ident $request:ident; $ret:ty) => {
        $($doc)*
        pub async fn $method(&self, r: &$request) -> Result<$ret> {
            self.get(r).await
        }
    };
}

gridprint_responses::endpoint_table!(typed_methods);
