import Dripper
import DripperTesting
import Foundation
import Testing

// TCA's ReusableFavoriting case study (Examples/CaseStudies, HigherOrderReducers): a favorite
// button any row can embed, whose request a second tap cancels in flight and whose failure rolls
// the tap back behind an alert. Written again as Dripper features; its two tests are ported
// assertion for assertion. happyPath advances a clock right after a pour (issue 40).

/// The state of a favorite button for a thing identified by `ID`.
struct FavoritingState<ID: Hashable & Sendable>: Equatable, Sendable {
  var alert: AlertState<FavoritingAction.Alert>?
  let id: ID
  var isFavorite: Bool
}

enum FavoritingAction: Sendable {
  case alert(PresentationAction<Alert>)
  case buttonTapped
  case response(Result<Bool, any Error>)

  enum Alert: Equatable, Sendable {}
}

/// The favoriting error of the case study; TCA's alert shows its `localizedDescription`, which
/// this port writes out as the same text.
struct FavoriteError: Error, Equatable {}

/// The reusable part: toggles at once, asks the server, and takes its answer, or rolls back on
/// an error once the alert is dismissed. A second tap cancels the first request.
struct Favoriting<ID: Hashable & Sendable>: Dripper {
  typealias State = FavoritingState<ID>
  typealias Action = FavoritingAction

  let favorite: @Sendable (ID, Bool) async throws -> Bool

  private struct CancelID: Hashable, Sendable { let id: ID }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .alert(.dismiss):
        state.alert = nil
        state.isFavorite.toggle()
        return .none
      case .alert:
        return .none
      case .buttonTapped:
        state.isFavorite.toggle()
        return .run { [id = state.id, isFavorite = state.isFavorite, favorite] pour in
          do {
            await pour(.response(.success(try await favorite(id, isFavorite))))
          } catch {
            await pour(.response(.failure(error)))
          }
        }
        .cancellable(id: CancelID(id: state.id), cancelInFlight: true)
      case .response(.failure):
        state.alert = AlertState { TextState("Favoriting failed.") }
        return .none
      case .response(.success(let isFavorite)):
        state.isFavorite = isFavorite
        return .none
      }
    }
  }
}

/// A row: an episode, whose favorite button works on a view of its state.
struct FavoritedEpisode: Dripper {
  struct State: Equatable, Identifiable, Sendable {
    var alert: AlertState<FavoritingAction.Alert>?
    let id: UUID
    var isFavorite: Bool
    let title: String

    var favorite: FavoritingState<UUID> {
      get { FavoritingState(alert: alert, id: id, isFavorite: isFavorite) }
      set { (alert, isFavorite) = (newValue.alert, newValue.isFavorite) }
    }
  }
  enum Action: Sendable {
    case favorite(FavoritingAction)
  }

  let favorite: @Sendable (UUID, Bool) async throws -> Bool

  var body: some DripperOf<Self> {
    Scope(state: \.favorite, action: .favorite) { Favoriting(favorite: favorite) }
  }
}

/// The list of episodes, each with its favorite button.
struct FavoritedEpisodes: Dripper {
  struct State: Equatable, Sendable {
    var episodes: IdentifiedArrayOf<FavoritedEpisode.State> = []
  }
  enum Action: Sendable {
    case episodes(IdentifiedActionOf<FavoritedEpisode>)
  }

  let favorite: @Sendable (UUID, Bool) async throws -> Bool

  var body: some DripperOf<Self> {
    EmptyDripper().forEach(\.episodes, action: .episodes) { FavoritedEpisode(favorite: favorite) }
  }
}

extension CasePath<FavoritedEpisode.Action, FavoritingAction> {
  static var favorite: Self { Self(FavoritedEpisode.Action.favorite) }
}
extension CasePath<FavoritedEpisodes.Action, IdentifiedActionOf<FavoritedEpisode>> {
  static var episodes: Self { Self(FavoritedEpisodes.Action.episodes) }
}
extension CasePath<FavoritingAction, Bool> {
  static var responseSuccess: Self {
    Self(
      { .response(.success($0)) },
      extract: { if case .response(.success(let value)) = $0 { value } else { nil } })
  }
}
extension CasePath<FavoritingAction, any Error> {
  static var responseFailure: Self {
    Self(
      { .response(.failure($0)) },
      extract: { if case .response(.failure(let error)) = $0 { error } else { nil } })
  }
}

/// What happens to the favorite button of the episode with `id`.
private func favoriteOf(_ id: UUID) -> CasePath<FavoritedEpisodes.Action, FavoritingAction> {
  CasePath.episodes[id: id].appending(.favorite)
}

@Suite struct ReusableFavoritingTests {
  @Test func happyPath() async {
    let clock = TestClock()
    let episodes: IdentifiedArrayOf<FavoritedEpisode.State> = [
      FavoritedEpisode.State(id: UUID(0), isFavorite: false, title: "Functions"),
      FavoritedEpisode.State(id: UUID(1), isFavorite: false, title: "Functions"),
      FavoritedEpisode.State(id: UUID(2), isFavorite: false, title: "Functions"),
    ]
    let store = TestStation(initialState: FavoritedEpisodes.State(episodes: episodes)) {
      FavoritedEpisodes { _, isFavorite in
        try await clock.sleep(for: .seconds(1))
        return isFavorite
      }
    }

    await store.pour(favoriteOf(UUID(0)).embed(.buttonTapped)) {
      $0.episodes[id: UUID(0)]?.isFavorite = true
    }
    await clock.advance(by: .seconds(1))
    await store.receive(favoriteOf(UUID(0)).appending(.responseSuccess))

    await store.pour(favoriteOf(UUID(1)).embed(.buttonTapped)) {
      $0.episodes[id: UUID(1)]?.isFavorite = true
    }
    await store.pour(favoriteOf(UUID(1)).embed(.buttonTapped)) {
      $0.episodes[id: UUID(1)]?.isFavorite = false
    }
    await clock.advance(by: .seconds(1))
    await store.receive(favoriteOf(UUID(1)).appending(.responseSuccess))
  }

  @Test func unhappyPath() async {
    let episodes: IdentifiedArrayOf<FavoritedEpisode.State> = [
      FavoritedEpisode.State(id: UUID(0), isFavorite: false, title: "Functions")
    ]
    let store = TestStation(initialState: FavoritedEpisodes.State(episodes: episodes)) {
      FavoritedEpisodes { _, _ in throw FavoriteError() }
    }

    await store.pour(favoriteOf(UUID(0)).embed(.buttonTapped)) {
      $0.episodes[id: UUID(0)]?.isFavorite = true
    }
    await store.receive(favoriteOf(UUID(0)).appending(.responseFailure)) {
      $0.episodes[id: UUID(0)]?.alert = AlertState { TextState("Favoriting failed.") }
    }
    await store.pour(favoriteOf(UUID(0)).embed(.alert(.dismiss))) {
      $0.episodes[id: UUID(0)]?.alert = nil
      $0.episodes[id: UUID(0)]?.isFavorite = false
    }
  }
}
