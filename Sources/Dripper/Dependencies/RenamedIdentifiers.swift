#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// Dripper's own identifier before ``DependencyValues/uuid`` made Foundation's: now `UUID`, as in
/// TCA. Kept for one release, so that old code names its replacement; it will be removed.
@_documentation(visibility: internal)
@available(
  *, deprecated, renamed: "UUID",
  message: "@Dependency(\\.uuid) makes Foundation UUIDs; in tests write UUID(0), UUID(1), …"
)
public typealias UniqueID = UUID

/// Dripper's own moment in time before ``DependencyValues/date`` told Foundation's: now `Date`, as
/// in TCA. Kept for one release, so that old code names its replacement; it will be removed.
@_documentation(visibility: internal)
@available(*, deprecated, renamed: "Date", message: "@Dependency(\\.date) tells Foundation Dates")
public typealias Timestamp = Date
