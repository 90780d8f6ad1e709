//! The text loader never panics, and what it accepts round-trips.

use freshgp::data::{cache, text};
use proptest::prelude::*;

fn line() -> impl Strategy<Value = Vec<u8>> {
    let bits = prop::collection::vec(prop::sample::select(vec![b'0', b'1', b'?']), 1..70);
    let noise = prop::collection::vec(any::<u8>(), 0..40);
    let field = prop::sample::select(vec![
        &b""[..],
        b"\tid",
        b"\tid\thost",
        b"\tp\th\tweight=2",
        b"\tp\th\tweight=-1",
        b"\tp\th\tx=1",
        b"\t\t\t",
        b"\r",
    ]);
    (bits, field, noise, 0u8..4).prop_map(|(mut b, f, n, k)| {
        b.extend_from_slice(f);
        if k == 0 {
            b.extend_from_slice(&n);
        }
        b.push(b'\n');
        b
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = text::read(&bytes[..], "fuzz");
        let _ = cache::read(&mut &bytes[..], "fuzz", bytes.len() as u64);
    }

    #[test]
    fn near_valid_files_never_panic_and_round_trip(lines in prop::collection::vec(line(), 1..20)) {
        let bytes: Vec<u8> = lines.concat();
        if let Ok(d) = text::read(&bytes[..], "fuzz") {
            let mut out = Vec::new();
            text::write(&d, &mut out).unwrap();
            let back = text::read(&out[..], "again").unwrap();
            prop_assert_eq!(&back, &d);
            let mut bin = Vec::new();
            cache::write(&d, &mut bin).unwrap();
            prop_assert_eq!(&cache::read(&mut &bin[..], "bin", bin.len() as u64).unwrap(), &d);
            // every policy resolves without panicking
            for p in ["paper", "infer", "zero", "one", "drop", "keep"] {
                let (r, rep) = p.parse::<freshgp::data::UnknownPolicy>().unwrap().apply(d.clone());
                prop_assert_eq!(r.pages() + rep.pages_dropped, d.pages());
            }
        } else {
            let e = text::read(&bytes[..], "fuzz").unwrap_err().to_string();
            prop_assert!(e.starts_with("fuzz"), "{}", e);
        }
    }
}
