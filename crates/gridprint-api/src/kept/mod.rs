//! Rendered answers kept in memory and served again: the response cache ([`response_cache`], with
//! the `If-None-Match` test), the memo of request tags ([`tag_memo`]), gzip copies of large answers
//! ([`precompress`]) and the budget of answer bytes waiting for their clients
//! ([`response_memory`]).

pub mod precompress;
pub mod response_cache;
pub mod response_memory;
pub mod tag_memo;
