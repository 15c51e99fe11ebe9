//! The CUDA device where it can run: on a machine without the CUDA driver, `Cuda::new` is a
//! typed `Unavailable` error naming `LD_LIBRARY_PATH` (never a panic); with a driver and a
//! GPU, a small round trip (transfers, axpy, dot, a segmented sum) matches the `Cpu`
//! reference.

use simdnlp_device::{Cpu, Cuda, Device, DeviceError, SegmentPlan, driver_present};

#[test]
fn cuda_is_unavailable_without_a_driver_or_matches_the_cpu() {
    match Cuda::new(0) {
        Err(DeviceError::Unavailable { device, reason }) => {
            assert_eq!(device, "cuda");
            if !driver_present() {
                assert!(
                    reason.contains("LD_LIBRARY_PATH") && reason.contains("libcuda.so.1"),
                    "the message should say how to point at the driver: {reason}"
                );
            }
            eprintln!("no usable CUDA device here: {reason}");
        }
        Err(e) => panic!("the CUDA device failed to open: {e}"),
        Ok(cuda) => round_trip(&cuda),
    }
}

#[test]
fn a_missing_driver_is_detected_without_panicking() {
    // `driver_present` only tries to load the library; calling it twice is harmless.
    assert_eq!(driver_present(), driver_present());
}

fn round_trip(cuda: &Cuda) {
    let x: Vec<f64> = (0..1000).map(|i| (i as f64).sin()).collect();
    let y: Vec<f64> = (0..1000).map(|i| 1.0 / (1.0 + i as f64)).collect();
    let cpu = Cpu;
    let (xc, mut yc) = (
        cpu.vector_from_host(&x).unwrap(),
        cpu.vector_from_host(&y).unwrap(),
    );
    let (xd, mut yd) = (
        cuda.vector_from_host(&x).unwrap(),
        cuda.vector_from_host(&y).unwrap(),
    );
    cpu.axpy(0.5, &xc, &mut yc);
    cuda.axpy(0.5, &xd, &mut yd);
    let mut back = vec![0.0; 1000];
    cuda.to_host(&yd, &mut back).unwrap();
    assert_eq!(back, yc, "axpy is bitwise equal");
    let (dc, dd) = (cpu.dot(&xc, &yc), cuda.dot(&xd, &yd));
    assert!(
        (dc - dd).abs() <= 1e-15 * dc.abs().max(1.0),
        "dot {dc} vs {dd}"
    );
    assert_eq!(cpu.norm_inf(&yc), cuda.norm_inf(&yd));
    let empty = cuda.zeros(0).unwrap();
    assert_eq!(cuda.len(&empty), 0);
    assert_eq!(cuda.norm_inf(&empty), 0.0);
    // a segmented sum: targets 0 and 2 of three, entries in a fixed order
    let plan = SegmentPlan::new(3, &[2, 0, 2], &[0, 1, 2], &[0, 1, 2]).unwrap();
    let (sc, sd) = (cpu.segments(&plan).unwrap(), cuda.segments(&plan).unwrap());
    let src = [1.5, -2.0, 4.25];
    let (srcc, srcd) = (
        cpu.vector_from_host(&src).unwrap(),
        cuda.vector_from_host(&src).unwrap(),
    );
    let (mut oc, mut od) = (cpu.zeros(3).unwrap(), cuda.zeros(3).unwrap());
    cpu.seg_sum(2.0, &srcc, &sc, 0.0, &mut oc);
    cuda.seg_sum(2.0, &srcd, &sd, 0.0, &mut od);
    let mut back = [0.0; 3];
    cuda.to_host(&od, &mut back).unwrap();
    assert_eq!(back.as_slice(), oc.as_slice());
    cuda.synchronize().unwrap();
}
