//! The entries whose raw files are not in the shared mirror (so no end-to-end test loads
//! them) hand their parser the right files and choices: each entry's `parse` on small
//! hand-written files equals the parser called as the registry called it before the table.

use std::io::Write;
use std::path::PathBuf;

use super::{covertype, gisette, realsim};
use crate::dataset::{Dataset, IYENGAR_SEED};
use crate::entry::{Build, DatasetEntry, Sources};
use crate::fetch::Fetched;
use crate::parse;

fn fetched(bytes: Vec<u8>) -> Fetched {
    Fetched {
        bytes,
        path: PathBuf::new(),
        sha256: String::new(),
    }
}

fn build(entry: &DatasetEntry, files: Vec<Vec<u8>>) -> Dataset {
    let fetched: Vec<Fetched> = files.into_iter().map(fetched).collect();
    match entry.build {
        Build::Parse { parse, .. } => parse(&Sources::new(entry, &fetched)).unwrap(),
        Build::Generate(_) => panic!("{} is generated", entry.name),
    }
}

fn gz(text: &str) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

fn bz2(text: &str) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

#[test]
fn gisette_reads_data_then_labels() {
    let (data, labels) = ("0 550 0 495 \n0 0 0 999 \n12 0 7 0 \n", "1\n-1\n1\n");
    let d = build(&gisette::GISETTE, vec![data.into(), labels.into()]);
    let direct = parse::gisette::parse(data.as_bytes(), labels.as_bytes()).unwrap();
    assert_eq!(d, direct);
    assert_eq!(d.y, vec![1.0, -1.0, 1.0]);
}

#[test]
fn covertype_gunzips_and_scales_as_iyengar() {
    // 10 quantitative values, 4 wilderness and 40 soil indicators, cover type.
    let record = |q: i32, w: usize, s: usize, cover: u8| {
        let mut f: Vec<String> = (0..10).map(|k| (q * (k + 1)).to_string()).collect();
        f.extend((1..=4).map(|k| u8::from(k == w).to_string()));
        f.extend((1..=40).map(|k| u8::from(k == s).to_string()));
        f.push(cover.to_string());
        f.join(",")
    };
    let text = [
        record(2596, 1, 29, 5),
        record(31, 3, 12, 2),
        record(7, 4, 40, 1),
    ]
    .join("\n")
        + "\n";
    let d = build(&covertype::COVERTYPE, vec![gz(&text)]);
    let direct = parse::covertype::parse(
        text.as_bytes(),
        &parse::covertype::CovertypeLayout::default(),
    )
    .unwrap();
    assert_eq!(d, direct);
    assert_eq!(d.x.nrows(), 3);
}

#[test]
fn real_sim_entries_differ_only_in_the_values_they_keep() {
    let text = "+1 1:1.0\n-1 2:2.0 4:2.1\n+1 1:3.0 3:3.1 5:3.2\n-1 2:4.0\n\
                +1 1:5.0 3:5.1\n-1 2:6.0 4:6.1 6:6.2\n+1 1:7.0\n";
    let direct = |values| {
        parse::realsim::parse(
            text.as_bytes(),
            "real-sim.bz2",
            parse::realsim::N_FEATURES,
            values,
        )
        .unwrap()
    };
    let file = build(&realsim::REAL_SIM, vec![bz2(text)]);
    assert_eq!(file, direct(parse::realsim::Values::File));
    let iyengar = build(&realsim::REAL_SIM_IYENGAR, vec![bz2(text)]);
    let seed = IYENGAR_SEED;
    assert_eq!(
        iyengar,
        direct(parse::realsim::Values::IyengarScript { seed })
    );
    assert_ne!(file, iyengar);
}
