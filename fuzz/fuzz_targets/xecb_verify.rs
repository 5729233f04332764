//! XECB$-MAC and XECB-MAC (AES-128) verification of arbitrary and of
//! perturbed tags: accepted exactly when the tag is the signature of the
//! message under its own y0 / counter; the parallel verifier agrees.
#![no_main]
use blockmodes::Aes128;
use blockmodes::xecb::hazmat::{SignWithCounter, SignWithR0};
use blockmodes::xecb::{XecbMac, XecbMacStateful};
use blockmodes_fuzz::{Input, aes128_decrypt};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 16] = inp.array();
    let iv: [u8; 16] = inp.array();
    let ctl = inp.byte();
    let delta: [u8; 32] = inp.array();
    let tag_len = inp.byte() as usize % 40;
    let msg = inp.rest();

    let mac = XecbMac::<Aes128>::new_from_slice(&key).unwrap();
    let good = mac.sign_with_r0(&iv, msg);
    let tag: Vec<u8> = match ctl % 3 {
        0 => good.iter().zip(delta).map(|(a, b)| a ^ b).collect(),
        1 => delta[..tag_len.min(32)].to_vec(),
        _ => mac.mac(msg).unwrap().to_vec(),
    };
    let v = mac.verify_tag(msg, &tag);
    assert_eq!(
        v.is_ok(),
        mac.verify_tag_par(msg, &tag).is_ok(),
        "parallel disagrees"
    );
    let expect = tag.len() == 32 && {
        let r0 = aes128_decrypt(&key, &tag[..16]);
        mac.sign_with_r0(&r0, msg)[..] == tag[..]
    };
    assert_eq!(v.is_ok(), expect, "XECB$ verify disagrees with signing");

    let keys = XecbMacStateful::<Aes128>::new_from_slice(&key).unwrap();
    let good = keys.sign_with_counter(&iv, msg);
    let tag: Vec<u8> = match ctl % 3 {
        0 => good.iter().zip(delta).map(|(a, b)| a ^ b).collect(),
        _ => delta[..tag_len.min(32)].to_vec(),
    };
    let v = keys.verify_tag(msg, &tag);
    assert_eq!(
        v.is_ok(),
        keys.verify_tag_par(msg, &tag).is_ok(),
        "parallel disagrees"
    );
    let expect = tag.len() == 32 && {
        let ctr: [u8; 16] = tag[..16].try_into().unwrap();
        keys.sign_with_counter(&ctr, msg)[..] == tag[..]
    };
    assert_eq!(v.is_ok(), expect, "XECB verify disagrees with signing");
});
