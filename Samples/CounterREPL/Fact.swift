/// A slow computation for the `fact` command: how many digits `n!` has, and how it starts.
///
/// It multiplies a big number limb by limb, checking for cancellation as it goes, so that a large
/// `n` keeps an effect busy long enough to be cancelled.
enum Fact {
  /// A sentence about `n!`; throws `CancellationError` if the task is cancelled meanwhile.
  static func about(_ n: Int) async throws -> String {
    guard n >= 0 else { return "\(n)! is not defined: factorials are for whole numbers from 0" }
    // Limbs of nine decimal digits, least significant first.
    var limbs: [UInt64] = [1]
    let base: UInt64 = 1_000_000_000
    var factor = 2
    while factor <= n {
      if factor.isMultiple(of: 64) {
        try Task.checkCancellation()
        await Task.yield()
      }
      var carry: UInt64 = 0
      for index in limbs.indices {
        let product = limbs[index] * UInt64(factor) + carry
        limbs[index] = product % base
        carry = product / base
      }
      while carry > 0 {
        limbs.append(carry % base)
        carry /= base
      }
      factor += 1
    }
    let leading = String(limbs.last!)
    let rest = limbs.dropLast().reversed().prefix(3).map { limb in
      let text = String(limb)
      return String(repeating: "0", count: 9 - text.count) + text
    }
    let start = ([leading] + rest).joined()
    let digits = leading.count + 9 * (limbs.count - 1)
    if digits <= 30 { return "\(n)! = \(start)" }
    return "\(n)! has \(digits) digits and starts \(start.prefix(6))…"
  }
}
