//! The key-file parser of the CLI: never panics; a parsed key writes back to
//! a file text that parses to the same key.
#![no_main]
use blockmodes_cli::keyfile::MasterKey;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(k) = MasterKey::from_file_text(text) {
        let again = MasterKey::from_file_text(&k.to_file_text()).unwrap();
        assert_eq!(again.bytes(), k.bytes());
        // Exactly one key line: its hex (any case) is the key.
        let line = text
            .lines()
            .map(|l| l.trim_end_matches([' ', '\t', '\r']))
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap();
        assert!(line.starts_with("blockmodes-key-v1 "));
        assert_eq!(
            hex_lower(k.bytes()),
            line["blockmodes-key-v1 ".len()..]
                .trim()
                .to_ascii_lowercase()
        );
    }
});

fn hex_lower(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
