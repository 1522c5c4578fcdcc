#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A moment in calendar time, without Foundation: the time since 1970-01-01 00:00:00 UTC.
///
/// ``DateGenerator`` makes them. Convert to Foundation's `Date` with
/// `Date(timeIntervalSince1970: timestamp.secondsSince1970)`.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  /// The time since 1970-01-01 00:00:00 UTC.
  public let sinceEpoch: Duration

  /// Creates the timestamp `sinceEpoch` after 1970-01-01 00:00:00 UTC.
  public init(sinceEpoch: Duration) { self.sinceEpoch = sinceEpoch }

  /// Creates the timestamp `seconds` after 1970-01-01 00:00:00 UTC.
  public init(secondsSince1970 seconds: Double) { self.init(sinceEpoch: .seconds(seconds)) }

  /// The time since 1970-01-01 00:00:00 UTC, in seconds.
  public var secondsSince1970: Double {
    let (seconds, attoseconds) = sinceEpoch.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// The timestamp `duration` later.
  public func advanced(by duration: Duration) -> Timestamp {
    Timestamp(sinceEpoch: sinceEpoch + duration)
  }

  /// Orders timestamps in time.
  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.sinceEpoch < rhs.sinceEpoch }

  /// ISO 8601 in UTC, to the millisecond: `2026-11-22T09:30:00.000Z`.
  public var description: String {
    let milliseconds = Int64(floor(secondsSince1970 * 1000))
    let (days, millisecondOfDay) = milliseconds.floorDivided(by: 86_400_000)
    let (year, month, day) = Self.civilDate(fromDays: days)
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    let hour = millisecondOfDay / 3_600_000
    let minute = millisecondOfDay / 60_000 % 60
    let second = millisecondOfDay / 1000 % 60
    let millisecond = millisecondOfDay % 1000
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
      + "\(pad(second, 2)).\(pad(millisecond, 3))Z"
  }

  /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
  private static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}

extension Int64 {
  fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
    let quotient = (self >= 0 ? self : self - divisor + 1) / divisor
    return (quotient, self - quotient * divisor)
  }
}
