use super::*;
use rand_distr::StandardNormal;

/// A small network whose ReLUs are partly active on standard-normal inputs.
fn tiny() -> (Mlp, Vec<f64>) {
    let mlp = Mlp::new(&[5, 8, 6, 3]).unwrap();
    let params = mlp.init(Init::Code, &mut StdRng::seed_from_u64(1));
    (mlp, params)
}

fn normal_rows(m: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..m * d).map(|_| rng.sample(StandardNormal)).collect()
}

/// Example `i`'s gradient, materialised: a lot of one, unclipped.
fn example_grad(mlp: &Mlp, params: &[f64], x: &[f64], y: u8) -> Vec<f64> {
    let mut batch = Batch::new(mlp, 1);
    batch.inputs_mut(1).copy_from_slice(x);
    mlp.forward(params, &mut batch);
    assert!(mlp.backward(params, &mut batch, &[y]));
    batch.scale[0] = 1.0;
    let mut g = vec![f64::NAN; mlp.n_params()];
    mlp.clipped_sum(&mut batch, &mut g);
    g
}

/// Softmax cross-entropy of one row, written independently of the trainer's.
fn loss(mlp: &Mlp, params: &[f64], x: &[f64], y: u8) -> f64 {
    let z = mlp.logits(params, x);
    z.iter().map(|v| v.exp()).sum::<f64>().ln() - z[y as usize]
}

fn norm(g: &[f64]) -> f64 {
    g.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[test]
fn parameter_counts_match_the_paper() {
    assert_eq!(Mlp::new(&[784, 1000, 10]).unwrap().n_params(), 795_010);
    assert_eq!(Mlp::new(&[784, 128, 64, 10]).unwrap().n_params(), 109_386);
}

#[test]
fn forward_matches_the_documented_layout() {
    let (mlp, params) = tiny();
    let x = normal_rows(4, 5, 2);
    let got = mlp.logits(&params, &x);
    let sizes = [5, 8, 6, 3];
    for r in 0..4 {
        let mut a = x[r * 5..(r + 1) * 5].to_vec();
        let mut off = 0;
        for l in 0..3 {
            let (i, o) = (sizes[l], sizes[l + 1]);
            let z: Vec<f64> = (0..o)
                .map(|j| {
                    let w = &params[off + j * i..off + (j + 1) * i];
                    w.iter().zip(&a).map(|(w, a)| w * a).sum::<f64>() + params[off + i * o + j]
                })
                .collect();
            a = if l < 2 {
                z.iter().map(|v| v.max(0.0)).collect()
            } else {
                z
            };
            off += (i + 1) * o;
        }
        assert_eq!(off, params.len());
        for j in 0..3 {
            assert!((got[r * 3 + j] - a[j]).abs() < 1e-13, "row {r} class {j}");
        }
    }
}

#[test]
fn per_example_gradients_match_central_differences() {
    let (mlp, params) = tiny();
    let x = normal_rows(3, 5, 3);
    let h = 1e-6;
    for r in 0..3 {
        let (xr, y) = (&x[r * 5..(r + 1) * 5], r as u8);
        let g = example_grad(&mlp, &params, xr, y);
        let mut active = 0;
        for k in 0..params.len() {
            let mut p = params.clone();
            p[k] += h;
            let up = loss(&mlp, &p, xr, y);
            p[k] -= 2.0 * h;
            let down = loss(&mlp, &p, xr, y);
            let fd = (up - down) / (2.0 * h);
            assert!(
                (g[k] - fd).abs() < 1e-7,
                "row {r} param {k}: {} vs {fd}",
                g[k]
            );
            active += usize::from(fd.abs() > 1e-3);
        }
        // The check is only as strong as the number of parameters with a gradient.
        assert!(active > params.len() / 3, "row {r}: {active} active");
    }
}

#[test]
fn the_norm_trick_equals_the_materialised_norms() {
    let (mlp, params) = tiny();
    let m = 7;
    let x = normal_rows(m, 5, 4);
    let y: Vec<u8> = (0..m as u8).map(|i| i % 3).collect();
    let mut batch = Batch::new(&mlp, m);
    batch.inputs_mut(m).copy_from_slice(&x);
    mlp.forward(&params, &mut batch);
    assert!(mlp.backward(&params, &mut batch, &y));
    mlp.sq_norms(&mut batch);
    for i in 0..m {
        let g = example_grad(&mlp, &params, &x[i * 5..(i + 1) * 5], y[i]);
        let sq = norm(&g).powi(2);
        assert!((batch.scale[i] / sq - 1.0).abs() < 1e-12, "{i}");
    }
}

#[test]
fn the_clipped_sum_equals_the_sum_of_clipped_gradients() {
    let (mlp, params) = tiny();
    let m = 9;
    let x = normal_rows(m, 5, 5);
    let y: Vec<u8> = (0..m as u8).map(|i| (i * 2) % 3).collect();
    let grads: Vec<Vec<f64>> = (0..m)
        .map(|i| example_grad(&mlp, &params, &x[i * 5..(i + 1) * 5], y[i]))
        .collect();
    let mut norms: Vec<f64> = grads.iter().map(|g| norm(g)).collect();
    norms.sort_by(f64::total_cmp);
    // Half the examples are clipped, half are not.
    let clip = norms[m / 2];
    let mut expect = vec![0.0; mlp.n_params()];
    for g in &grads {
        let c = (clip / (norm(g) + 1e-8)).min(1.0);
        expect.iter_mut().zip(g).for_each(|(e, g)| *e += c * g);
    }
    let mut batch = Batch::new(&mlp, m);
    batch.inputs_mut(m).copy_from_slice(&x);
    let mut got = vec![f64::NAN; mlp.n_params()];
    assert!(mlp.clipped_grad_sum(&params, &mut batch, &y, clip, &mut got));
    for (k, (g, e)) in got.iter().zip(&expect).enumerate() {
        assert!((g - e).abs() < 1e-13, "param {k}: {g} vs {e}");
    }
}

#[test]
fn one_full_lot_step_is_minus_lr_times_the_mean_clipped_gradient() {
    let (mlp, _) = tiny();
    let x = normal_rows(6, 5, 6);
    let y = [0, 1, 2, 2, 1, 0];
    let data = DenseData::new(&x, 5, &y).unwrap();
    // lot = n: the lot is every row whatever the order; z tiny: noise below 1e-14.
    let h = Hyper {
        epochs: 1,
        lot: 6,
        lr: 0.3,
        clip: 0.5,
        noise_multiplier: 1e-14,
    };
    let run = train_mlp(&data, mlp.sizes(), Optimizer::sgd(0.3), &h, Init::Code, 11).unwrap();
    assert_eq!((run.steps, run.steps_run), (1, 1));
    // The initialisation is the seed's first draws.
    let mut expect = mlp.init(Init::Code, &mut StdRng::seed_from_u64(11));
    let start = expect.clone();
    let mut clipped = 0;
    for i in 0..6 {
        let g = example_grad(&mlp, &start, &x[i * 5..(i + 1) * 5], y[i]);
        let c = (0.5 / (norm(&g) + 1e-8)).min(1.0);
        clipped += usize::from(c < 1.0);
        expect
            .iter_mut()
            .zip(&g)
            .for_each(|(e, g)| *e -= 0.3 * c * g / 6.0);
    }
    assert!(clipped > 0);
    for (k, (p, e)) in run.params.iter().zip(&expect).enumerate() {
        assert!((p - e).abs() < 1e-12, "param {k}: {p} vs {e}");
    }
}

/// Three well-separated Gaussian clusters in 6 dimensions.
fn clusters(n: usize, seed: u64) -> (Vec<f64>, Vec<u8>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut x = Vec::with_capacity(n * 6);
    let y: Vec<u8> = (0..n).map(|i| (i % 3) as u8).collect();
    for &c in &y {
        for j in 0..6 {
            let centre = if j == c as usize { 3.0 } else { 0.0 };
            x.push(centre + 0.5 * rng.sample::<f64, _>(StandardNormal));
        }
    }
    (x, y)
}

#[test]
fn low_noise_training_separates_three_clusters() {
    let (x, y) = clusters(600, 7);
    let (tx, ty) = clusters(300, 8);
    let (train, test) = (
        DenseData::new(&x, 6, &y).unwrap(),
        DenseData::new(&tx, 6, &ty).unwrap(),
    );
    for (sizes, opt) in [
        (&[6, 16, 3][..], Optimizer::sgd(0.2)),
        (&[6, 8, 8, 3][..], Optimizer::sgd(0.2)),
        (&[6, 8, 8, 3][..], Optimizer::adam(0.01)),
    ] {
        let h = Hyper {
            epochs: 5,
            lot: 20,
            lr: opt.lr(),
            clip: 1.0,
            noise_multiplier: 0.1,
        };
        let run = train_mlp(&train, sizes, opt, &h, Init::Code, 9).unwrap();
        assert!(!run.diverged());
        let acc = run.accuracy(&test);
        assert!(acc > 0.95, "{sizes:?} {opt:?}: {acc}");
    }
}

#[test]
fn the_same_seed_gives_the_same_model_and_another_seed_does_not() {
    let (x, y) = clusters(60, 1);
    let data = DenseData::new(&x, 6, &y).unwrap();
    let h = Hyper {
        epochs: 2,
        lot: 10,
        lr: 0.1,
        clip: 1.0,
        noise_multiplier: 1.0,
    };
    let go = |s| train_mlp(&data, &[6, 5, 3], Optimizer::sgd(0.1), &h, Init::Code, s).unwrap();
    assert_eq!(go(3), go(3));
    assert_ne!(go(3).params, go(4).params);
}

#[test]
fn a_diverging_run_stops_but_is_charged_every_step() {
    let (x, y) = clusters(100, 2);
    let data = DenseData::new(&x, 6, &y).unwrap();
    let h = Hyper {
        epochs: 50,
        lot: 10,
        lr: 1e308,
        clip: 1.0,
        noise_multiplier: 1.0,
    };
    let run = train_mlp(&data, &[6, 5, 3], Optimizer::sgd(1e308), &h, Init::Code, 5).unwrap();
    assert!(run.diverged(), "{:?}", (run.steps, run.steps_run));
    assert_eq!(run.steps, 500);
    assert!((0.0..=1.0).contains(&run.accuracy(&data)));
}

#[test]
fn accuracy_takes_the_first_maximum_and_counts_non_finite_rows_wrong() {
    // One identity layer: the logits are the inputs.
    let run = MlpRun {
        mlp: Mlp::new(&[2, 2]).unwrap(),
        params: vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        steps: 1,
        steps_run: 1,
    };
    let x = [
        1.0,
        0.0,
        0.0,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        f64::NAN,
        0.0,
        f64::INFINITY,
        -1.0,
    ];
    let y = [0, 1, 0, 1, 0, 0];
    let acc = run.accuracy(&DenseData::new(&x, 2, &y).unwrap());
    assert_eq!(acc, 3.0 / 6.0);
}

#[test]
fn initialisation_scales_follow_the_fans() {
    let mlp = Mlp::new(&[200, 300, 3]).unwrap();
    let zero = mlp.init(Init::Paper, &mut StdRng::seed_from_u64(1));
    assert!(zero.iter().all(|&v| v == 0.0));
    let p = mlp.init(Init::Code, &mut StdRng::seed_from_u64(1));
    let rms = |r: Range<usize>| norm(&p[r.clone()]) / (r.len() as f64).sqrt();
    for (range, sd, tol) in [
        (mlp.weights(0), (6.0f64 / 500.0).sqrt(), 0.02),
        (mlp.bias(0), (6.0f64 / 301.0).sqrt(), 0.15),
        (mlp.weights(1), (6.0f64 / 303.0).sqrt(), 0.1),
    ] {
        assert!((rms(range.clone()) / sd - 1.0).abs() < tol, "{range:?}");
    }
}

#[test]
fn bad_inputs_are_refused_by_name() {
    let (x, y) = clusters(30, 3);
    let data = DenseData::new(&x, 6, &y).unwrap();
    let h = Hyper {
        epochs: 1,
        lot: 10,
        lr: 0.1,
        clip: 1.0,
        noise_multiplier: 1.0,
    };
    let go = |sizes: &[usize], h: &Hyper| {
        train_mlp(&data, sizes, Optimizer::sgd(0.1), h, Init::Code, 1)
            .unwrap_err()
            .to_string()
    };
    assert!(go(&[6], &h).contains("mlp-sizes"));
    assert!(go(&[6, 0, 3], &h).contains("mlp-width"));
    assert!(go(&[5, 3], &h).contains("features"));
    assert!(go(&[6, 2], &h).contains("label"));
    assert!(go(&[6, 3], &Hyper { lot: 31, ..h }).contains("lot"));
}

/// Seconds per epoch on MNIST-sized rows (60,000 × 784, 10 classes), the flop rate of the
/// matrix work, and how much of the time the noise alone takes.
#[test]
#[ignore = "timing: cargo test --release -p dp-core --lib avent::mlp -- --ignored --nocapture"]
fn timing_per_epoch_on_mnist_sized_rows() {
    use crate::learn::avent::add_mean_noise;
    use std::time::Instant;
    let (n, d) = (60_000, 784);
    let mut rng = StdRng::seed_from_u64(1);
    // Dense products cost the same whatever the pixels, so uniform ones stand in for MNIST's.
    let x: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>()).collect();
    let y: Vec<u8> = (0..n).map(|i| (i % 10) as u8).collect();
    let data = DenseData::new(&x, d, &y).unwrap();
    let mlp2 = &[784, 128, 64, 10][..];
    for (sizes, lot) in [(mlp2, 256), (mlp2, 64), (&[784, 1000, 10][..], 256)] {
        let h = Hyper {
            epochs: 1,
            lot,
            lr: 0.01,
            clip: 1.0,
            noise_multiplier: 1.0,
        };
        let start = Instant::now();
        let run = train_mlp(&data, sizes, Optimizer::sgd(0.01), &h, Init::Code, 1).unwrap();
        let secs = start.elapsed().as_secs_f64();
        assert!(!run.diverged());
        let start = Instant::now();
        let mut g = vec![0.0; run.mlp.n_params()];
        for _ in 0..run.steps {
            add_mean_noise(&mut g, lot, 1.0, 1.0, &mut rng);
        }
        let noise = start.elapsed().as_secs_f64();
        // Per example: forward, weight gradient, and the deltas of every layer but the first.
        let macs: usize = sizes.windows(2).map(|w| w[0] * w[1]).sum();
        let flops = 2.0 * (3 * macs - sizes[0] * sizes[1]) as f64 * (run.steps as f64 * lot as f64);
        eprintln!(
            "{sizes:?} lot {lot}: {} steps in {secs:.2} s per epoch, noise {noise:.2} s; \
             {:.1} GFLOP, {:.1} GFLOP/s overall, {:.1} GFLOP/s without the noise",
            run.steps,
            flops / 1e9,
            flops / secs / 1e9,
            flops / (secs - noise) / 1e9
        );
    }
}
