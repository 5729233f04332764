//! PMAC-AES-128 verification: `verify` accepts exactly the tag `mac`
//! computes (of any length, only 16 bytes can match), a tag of any length is
//! otherwise refused; streaming in arbitrary pieces and the parallel MAC
//! give the one-shot tag.
#![no_main]
use blockmodes::pmac::PmacAes128;
use blockmodes_fuzz::Input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 16] = inp.array();
    let ctl = inp.byte();
    let delta: [u8; 16] = inp.array();
    let tag_len = inp.byte() as usize % 20;
    let piece = 1 + inp.u16() as usize;
    let msg = inp.rest();
    let pmac = PmacAes128::new_from_slice(&key).unwrap();
    let t = pmac.mac(msg);

    // A tag near the right one (delta all zero: the right one) or arbitrary.
    let tag: Vec<u8> = if ctl & 1 == 0 {
        t.iter().zip(delta).map(|(a, b)| a ^ b).collect()
    } else {
        delta[..tag_len.min(16)].to_vec()
    };
    let ok = pmac.verify_tag(msg, &tag).is_ok();
    assert_eq!(
        ok,
        tag.as_slice() == t.as_slice(),
        "verify disagrees with mac"
    );

    let mut st = PmacAes128::new_from_slice(&key).unwrap();
    for p in msg.chunks(piece) {
        st.update(p);
    }
    assert_eq!(st.finalize().into_bytes(), t, "streaming differs");
    assert_eq!(pmac.mac_par(msg), t, "parallel differs");
});
