//! The checksum-list parser of `blockmodes verify`: never panics; a line
//! that parses is re-written by `sum_line` into a line that parses to the
//! same tag and name; names escape and unescape to themselves.
#![no_main]
use blockmodes_cli::macsum::{escape_name, parse_line, sum_line, unescape_name};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((tag, name)) = parse_line(data) {
        assert!(!name.is_empty());
        let line = sum_line(&tag, &name);
        assert_eq!(line.last(), Some(&b'\n'));
        assert_eq!(parse_line(&line[..line.len() - 1]), Some((tag, name)));
    }
    let (escaped, text) = escape_name(data);
    if escaped {
        assert_eq!(unescape_name(&text).as_deref(), Some(data));
    } else {
        assert_eq!(text, data);
    }
    // Any tag and non-empty name round-trip through a line.
    if data.len() > 16 {
        let (tag, name) = data.split_at(16);
        let line = sum_line(tag, name);
        assert_eq!(
            parse_line(&line[..line.len() - 1]),
            Some((tag.to_vec(), name.to_vec())),
            "line {line:?}"
        );
    }
});
