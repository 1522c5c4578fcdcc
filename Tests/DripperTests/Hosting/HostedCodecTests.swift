import Foundation
import Testing

@testable import Dripper

/// The hosted envelope's versions: what this Dripper writes, reads from an earlier one, and refuses
/// from a later one.
@Suite struct HostedCodecTests {
  typealias Codec = JournalCodec<HostedState<Wallet.State, Wallet.Action>, HostedAction<Wallet.Action>>

  let codec: Codec = HostedCodec.codec(.json, requests: RequestRetention(count: 10, age: nil))

  /// A state with a request, its reply and a reminder is written in version 2 and read back the
  /// same.
  @Test func aStateIsReadBackAsItWasWritten() throws {
    var state = HostedState<Wallet.State, Wallet.Action>(
      value: Wallet.State(balance: 7), requests: RequestRetention(count: 10, age: nil))
    state.sequence = 3
    state.requests.insert(
      "a b\nc",
      RequestWindow.Entry(
        sequence: 2, nonce: 0xfeed, fingerprint: 0xbeef, time: 1_800_000_000.5,
        reply: .value(WalletReply.refused("would overdraw"))))
    state.reminders.set(
      "later", PendingReminder(deadline: Date(timeIntervalSince1970: 1_800_000_100), action: .deposit(1)))
    let text = try codec.encodeState(state)
    #expect(text.hasPrefix("dripper-host 2\nsequence 3\n"))
    let read = try codec.decodeState(text)
    #expect(read.sequence == 3)
    #expect(read.value == Wallet.State(balance: 7))
    let entry = try #require(read.requests.entry("a b\nc", at: 1_800_000_001))
    #expect(
      entry.sequence == 2 && entry.nonce == 0xfeed && entry.fingerprint == 0xbeef
        && entry.time == 1_800_000_000.5)
    #expect(entry.reply?.decoded(as: WalletReply.self) == .refused("would overdraw"))
    #expect(read.reminders["later"]?.action == .deposit(1))
    #expect(try codec.encodeState(read) == text)
  }

  /// A snapshot an earlier Dripper wrote (version 1: requests without fingerprints, times or
  /// replies) is read: its ids are kept, their retries not checked against another action.
  @Test func aVersion1SnapshotIsRead() throws {
    let text = """
      dripper-host 1
      sequence 4
      request 3 00000000000000aa r-1
      reminder 1800000100.0 later
      {"deposit":{"_0":1}}
      state
      {"balance":12}
      """
    let state = try codec.decodeState(text)
    #expect(state.sequence == 4)
    #expect(state.value.balance == 12)
    let entry = try #require(state.requests.entry("r-1", at: 4_000_000_000))
    #expect(entry.sequence == 3 && entry.nonce == 0xaa && entry.fingerprint == 0 && entry.reply == nil)
    #expect(state.reminders["later"]?.deadline == Date(timeIntervalSince1970: 1_800_000_100))
  }

  /// Entries of both versions are read: a version 1 request (`r`) and a version 2 one (`q`).
  @Test func entriesOfBothVersionsAreRead() throws {
    guard case .request(let old) = try codec.decodeAction(#"r 00000000000000aa 3:r-1 {"deposit":{"_0":1}}"#)
    else {
      Issue.record("not a request")
      return
    }
    #expect(old.id == "r-1" && old.nonce == 0xaa && old.fingerprint == 0 && old.action == .deposit(1))
    let request = HostedRequest(
      id: "r 2", nonce: 5, time: 1_800_000_000.25, fingerprint: 9, action: Wallet.Action.withdraw(2))
    let line = codec.encodeAction(.request(request))
    #expect(line == #"q 0000000000000005 0000000000000009 1800000000.25 3:r 2 {"withdraw":{"_0":2}}"#)
    guard case .request(let read) = try codec.decodeAction(line) else {
      Issue.record("not a request")
      return
    }
    #expect(read.id == "r 2" && read.nonce == 5 && read.fingerprint == 9 && read.time == 1_800_000_000.25)
  }

  /// What a later Dripper writes is refused clearly, never misread: a key whose snapshot or entry
  /// this one cannot read fails, its files left as they are.
  @Test func aLaterVersionIsRefusedClearly() throws {
    #expect(throws: (any Error).self) { try codec.decodeState("dripper-host 3\nsequence 1\nstate\n{}") }
    do {
      _ = try codec.decodeState("dripper-host 3\nsequence 1\nstate\n{}")
    } catch {
      #expect(
        "\(error)"
          == "not a hosted key's snapshot (its first line is 'dripper-host 3', not 'dripper-host 2': a later Dripper wrote it?)"
      )
    }
    #expect(throws: (any Error).self) { try codec.decodeAction("z something new") }
  }
}
