/// What happens when an effect starts under an id that other effects are already running under.
///
/// Pass one to ``Effect/cancellable(id:policy:fileID:line:)``:
///
/// | Policy | A new effect, while others with its id run… | Use it for |
/// | --- | --- | --- |
/// | ``concurrent`` | runs alongside them | independent work you may cancel together |
/// | ``cancelInFlight`` | cancels them, then runs | search as you type, refresh (bloc's *restartable*) |
/// | ``dropNew`` | is dropped | double taps, a submit already in progress (bloc's *droppable*) |
/// | ``enqueue`` | waits, then runs after them in arrival order | uploads, writes (bloc's *sequential*) |
///
/// Cancelling the id with ``Effect/cancel(id:)`` cancels the effects running under it and those
/// waiting their turn.
public enum EffectPolicy: Sendable, Hashable, CaseIterable {
  /// Run alongside the effects already running under the id.
  case concurrent
  /// Cancel the effects running (or queued) under the id, then run.
  case cancelInFlight
  /// Do not run at all while an effect runs (or waits) under the id.
  case dropNew
  /// Wait until every effect under the id has finished, then run; effects that wait run one at a
  /// time, in the order they arrived.
  case enqueue
}
