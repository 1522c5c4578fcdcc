#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How much of the stress tests' load to run: `DRIPPER_STRESS_SCALE=0.1` runs a tenth, as CI does
/// under the sanitizers, whose instrumentation slows everything tenfold.
let stressScale: Double = {
  guard let text = getenv("DRIPPER_STRESS_SCALE").map({ String(cString: $0) }), let scale = Double(text)
  else {
    return 1
  }
  return min(max(scale, 0.001), 1)
}()

/// `count` scaled by ``stressScale``, at least 1.
func scaled(_ count: Int) -> Int { max(1, Int(Double(count) * stressScale)) }
