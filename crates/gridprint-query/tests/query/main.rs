//! Integration tests of gridprint-query: an in-memory SQLite store filled with hand-made derived days
//! and input points, loaded into the cache, queried through the same entry point the HTTP layer uses.

mod endpoints;
mod fixture;
mod incremental;
mod params;
mod raw_flags;
mod scale;
mod wire;
