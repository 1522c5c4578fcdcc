#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension Dump {
  /// Foundation's values as their text, as swift-custom-dump shows them: `URL(https://…)`,
  /// `UUID(…)`, `Date(2009-02-13T23:31:30.000Z)`, `Data(5 bytes: 68656c6c6f)`; `nil` for any
  /// other value. A `URL` on Linux reflects as its private storage (`_SwiftURL(parseInfo: …)`),
  /// fifteen lines a test failure should not show.
  static func foundationText(_ value: Any) -> String? {
    switch value {
    case let url as URL: "URL(\(url.absoluteString))"
    case let id as UUID: "UUID(\(id.uuidString))"
    case let date as Date: "Date(\(iso8601(date)))"
    case let data as Data:
      data.count <= 16
        ? "Data(\(data.count) bytes\(data.isEmpty ? "" : ": " + data.map(hex).joined()))"
        : "Data(\(data.count) bytes)"
    default: nil
    }
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
  }

  /// ISO 8601 in UTC, to the millisecond: `2026-11-22T09:30:00.000Z`.
  static func iso8601(_ date: Date) -> String {
    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    let (days, millisecondOfDay) = milliseconds.floorDivided(by: 86_400_000)
    let (year, month, day) = civilDate(fromDays: days)
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    let hour = millisecondOfDay / 3_600_000
    let minute = millisecondOfDay / 60_000 % 60
    let second = millisecondOfDay / 1000 % 60
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
      + "\(pad(second, 2)).\(pad(millisecondOfDay % 1000, 3))Z"
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
