import Dripper

#if canImport(Glibc)
  import Glibc
#endif
if let mode = CommandLine.arguments.dropFirst().first, mode.hasPrefix("--profile-") {
  await Task.detached { await profile(String(mode.dropFirst("--profile-".count))) }.value
  exit(0)
}
// Top-level code runs on the main actor: measure from a task of the global pool.
let rows = await Task.detached { await coreRows(scale: 1) }.value
for row in rows {
  var line = "\(row.name): \(row.nanosecondsPerOperation) ns"
  if let baseline = row.baseline, let base = rows.first(where: { $0.name == baseline }) {
    line += " = \(row.nanosecondsPerOperation / base.nanosecondsPerOperation)x"
  }
  print(line)
}
