//! Large answers compressed once, where they are built, and kept compressed.
//!
//! The compression layer ([`crate::router`]) compresses each answer on the async workers, once per
//! request. For a large answer that is milliseconds of CPU every time, and a flood of large
//! answers compressed again and again would hold every async worker. An answer of
//! [`PRECOMPRESS_MIN_BYTES`] or more asked by a client that takes gzip is therefore compressed once
//! where it is built or first served off the async workers ([`crate::kept`]), the gzip bytes are kept
//! in the response cache beside the plain ones (they are about a tenth of the size, so an answer
//! too large to keep plain is usually kept compressed), and the answer goes out with
//! `Content-Encoding: gzip`, which the layer leaves alone.

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, header};
use flate2::Compression;
use flate2::write::GzEncoder;
use std::io::Write;

/// Answers from this size on are compressed where they are built, not by the layer.
pub const PRECOMPRESS_MIN_BYTES: usize = 128 << 10;

/// The compression level: the layer's own (`CompressionLevel::Precise(4)`).
const LEVEL: u32 = 4;

/// Whether `Accept-Encoding` takes gzip: `gzip` or `*` with a quality above 0 (RFC 9110 §12.5.3;
/// an explicit `gzip;q=0` refuses it even when `*` is accepted).
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut gzip = None;
    let mut any = None;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim();
            let quality = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .filter_map(|q| q.trim().parse::<f32>().ok())
                .next_back()
                .unwrap_or(1.0);
            if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
                gzip = Some(quality > 0.0);
            } else if coding == "*" {
                any = Some(quality > 0.0);
            }
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// Whether an answer of `len` bytes for a client that takes gzip (`gzip`) is to be compressed here.
pub fn wanted(gzip: bool, len: usize) -> bool {
    gzip && len >= PRECOMPRESS_MIN_BYTES
}

/// `body` compressed with gzip.
pub fn gzip(body: &[u8]) -> Bytes {
    let mut encoder = GzEncoder::new(Vec::with_capacity(body.len() / 8), Compression::new(LEVEL));
    // Writing into a Vec cannot fail.
    encoder.write_all(body).expect("gzip into memory");
    Bytes::from(encoder.finish().expect("gzip into memory"))
}

/// The response-cache key of the gzip bytes of the answer kept under `key`.
pub fn gzip_key(key: &str) -> String {
    format!("{key}|gzip")
}

/// Marks an answer's headers as gzip bytes that vary with `Accept-Encoding`.
pub fn mark_gzip(headers: &mut HeaderMap) {
    headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
}

#[cfg(test)]
mod tests {
    use super::{accepts_gzip, gzip};
    use axum::http::{HeaderMap, HeaderValue, header};
    use std::io::Read;

    fn accepts(value: &str) -> bool {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        accepts_gzip(&h)
    }

    #[test]
    fn gzip_is_taken_by_name_or_star_unless_its_quality_is_zero() {
        assert!(accepts("gzip, deflate"));
        assert!(accepts("br;q=1.0, GZIP;q=0.5"));
        assert!(accepts("*"));
        assert!(!accepts("identity"));
        assert!(!accepts("br, zstd"));
        assert!(!accepts("gzip;q=0"));
        assert!(!accepts("*, gzip;q=0"));
        assert!(!accepts("*;q=0"));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn gzip_round_trips() {
        let body = "[{\"zone\":\"DE\"}]".repeat(10_000);
        let packed = gzip(body.as_bytes());
        assert!(packed.len() < body.len() / 10);
        let mut out = String::new();
        flate2::read::GzDecoder::new(&packed[..])
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, body);
    }
}
