import Dripper
import DripperTesting
import Testing

// TCA's Search example (Examples/Search): a query whose debounced change searches, a cleared query
// that cancels the search in flight, and a tapped result whose forecast request cancels the one
// before it. Written again as a Dripper feature; its six tests are ported assertion for assertion.
// testTapOnLocationCancelsInFlightRequest sleeps for zero on a test clock, which must wait for the
// advance (issue 40); a date is its seconds since 1970, as the port keeps Foundation out.

/// The geocoding answer, as the example's `GeocodingSearch`.
struct GeocodingSearch: Equatable, Sendable {
  var results: [Result]

  struct Result: Equatable, Identifiable, Sendable {
    var country: String
    var latitude: Double
    var longitude: Double
    var id: Int
    var name: String
  }

  static let mock = GeocodingSearch(results: [
    Result(country: "United States", latitude: 40.6782, longitude: -73.9442, id: 1, name: "Brooklyn"),
    Result(country: "United States", latitude: 34.0522, longitude: -118.2437, id: 2, name: "Los Angeles"),
    Result(country: "United States", latitude: 37.7749, longitude: -122.4194, id: 3, name: "San Francisco"),
  ])
}

/// The forecast answer, as the example's `Forecast`: one entry a day in each array.
struct Forecast: Equatable, Sendable {
  var daily: Daily
  var dailyUnits: DailyUnits

  struct Daily: Equatable, Sendable {
    var temperatureMax: [Double]
    var temperatureMin: [Double]
    var time: [Double]
  }
  struct DailyUnits: Equatable, Sendable {
    var temperatureMax: String
    var temperatureMin: String
  }

  static let mock = Forecast(
    daily: Daily(temperatureMax: [90, 70, 100], temperatureMin: [70, 50, 80], time: [0, 86_400, 172_800]),
    dailyUnits: DailyUnits(temperatureMax: "°F", temperatureMin: "°F"))
}

struct WeatherClient: Sendable {
  var forecast: @Sendable (_ location: GeocodingSearch.Result) async throws -> Forecast
  var search: @Sendable (_ query: String) async throws -> GeocodingSearch
}

enum WeatherClientKey: DependencyKey {
  static let liveValue = WeatherClient(forecast: { _ in .mock }, search: { _ in .mock })
  static let testValue = WeatherClient(
    forecast: unimplemented("WeatherClient.forecast"), search: unimplemented("WeatherClient.search"))
}

extension DependencyValues {
  var weatherClient: WeatherClient {
    get { self[WeatherClientKey.self] }
    set { self[WeatherClientKey.self] = newValue }
  }
}

struct Search: Dripper {
  struct State: Equatable, Sendable {
    var results: [GeocodingSearch.Result] = []
    var resultForecastRequestInFlight: GeocodingSearch.Result?
    var searchQuery = ""
    var weather: Weather?

    struct Weather: Equatable, Sendable {
      var id: GeocodingSearch.Result.ID
      var days: [Day]

      struct Day: Equatable, Sendable {
        var date: Double
        var temperatureMax: Double
        var temperatureMaxUnit: String
        var temperatureMin: Double
        var temperatureMinUnit: String
      }
    }
  }

  enum Action: Sendable {
    case forecastResponse(GeocodingSearch.Result.ID, Result<Forecast, any Error>)
    case searchQueryChanged(String)
    case searchQueryChangeDebounced
    case searchResponse(Result<GeocodingSearch, any Error>)
    case searchResultTapped(GeocodingSearch.Result)
  }

  @Dependency(\.weatherClient) var weatherClient
  private enum CancelID: Hashable, Sendable { case location, weather }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .forecastResponse(_, .failure):
        state.weather = nil
        state.resultForecastRequestInFlight = nil
        return .none

      case .forecastResponse(let id, .success(let forecast)):
        state.weather = State.Weather(
          id: id,
          days: forecast.daily.time.indices.map {
            State.Weather.Day(
              date: forecast.daily.time[$0],
              temperatureMax: forecast.daily.temperatureMax[$0],
              temperatureMaxUnit: forecast.dailyUnits.temperatureMax,
              temperatureMin: forecast.daily.temperatureMin[$0],
              temperatureMinUnit: forecast.dailyUnits.temperatureMin
            )
          }
        )
        state.resultForecastRequestInFlight = nil
        return .none

      case .searchQueryChanged(let query):
        state.searchQuery = query
        // A cleared query clears the results and cancels the search in flight, whose answer would
        // otherwise come later.
        guard !state.searchQuery.isEmpty else {
          state.results = []
          state.weather = nil
          return .cancel(id: CancelID.location)
        }
        return .none

      case .searchQueryChangeDebounced:
        guard !state.searchQuery.isEmpty else { return .none }
        return .run { [query = state.searchQuery, weatherClient] pour in
          do {
            await pour(.searchResponse(.success(try await weatherClient.search(query))))
          } catch {
            await pour(.searchResponse(.failure(error)))
          }
        }
        .cancellable(id: CancelID.location)

      case .searchResponse(.failure):
        state.results = []
        return .none

      case .searchResponse(.success(let response)):
        state.results = response.results
        return .none

      case .searchResultTapped(let location):
        state.resultForecastRequestInFlight = location
        return .run { [weatherClient] pour in
          do {
            await pour(.forecastResponse(location.id, .success(try await weatherClient.forecast(location))))
          } catch {
            await pour(.forecastResponse(location.id, .failure(error)))
          }
        }
        .cancellable(id: CancelID.weather, cancelInFlight: true)
      }
    }
  }
}

/// TCA's `\.searchResponse.success`, `\.searchResponse.failure` and `\.forecastResponse`.
extension CasePath<Search.Action, GeocodingSearch> {
  static var searchResponseSuccess: Self {
    Self(
      { .searchResponse(.success($0)) },
      extract: {
        if case .searchResponse(.success(let r)) = $0 { r } else { nil }
      })
  }
}
extension CasePath<Search.Action, any Error> {
  static var searchResponseFailure: Self {
    Self(
      { .searchResponse(.failure($0)) },
      extract: {
        if case .searchResponse(.failure(let e)) = $0 { e } else { nil }
      })
  }
}
extension CasePath<Search.Action, (GeocodingSearch.Result.ID, Result<Forecast, any Error>)> {
  static var forecastResponse: Self {
    Self(
      { .forecastResponse($0.0, $0.1) },
      extract: {
        if case .forecastResponse(let id, let r) = $0 { (id, r) } else { nil }
      })
  }
}

/// The weather the tests expect for the mock forecast at `id`.
private func mockWeather(id: Int) -> Search.State.Weather {
  Search.State.Weather(
    id: id,
    days: [
      Search.State.Weather.Day(
        date: 0, temperatureMax: 90, temperatureMaxUnit: "°F", temperatureMin: 70, temperatureMinUnit: "°F"),
      Search.State.Weather.Day(
        date: 86_400, temperatureMax: 70, temperatureMaxUnit: "°F", temperatureMin: 50,
        temperatureMinUnit: "°F"),
      Search.State.Weather.Day(
        date: 172_800, temperatureMax: 100, temperatureMaxUnit: "°F", temperatureMin: 80,
        temperatureMinUnit: "°F"),
    ]
  )
}

@Suite struct SearchExampleTests {
  struct SomethingWentWrong: Error {}

  @Test func searchAndClearQuery() async {
    let store = TestStation(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.weatherClient.search = { _ in .mock }
    }

    await store.pour(.searchQueryChanged("S")) {
      $0.searchQuery = "S"
    }
    await store.pour(.searchQueryChangeDebounced)
    await store.receive(.searchResponseSuccess) {
      $0.results = GeocodingSearch.mock.results
    }
    await store.pour(.searchQueryChanged("")) {
      $0.results = []
      $0.searchQuery = ""
    }
  }

  @Test func searchFailure() async {
    let store = TestStation(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.weatherClient.search = { _ in throw SomethingWentWrong() }
    }

    await store.pour(.searchQueryChanged("S")) {
      $0.searchQuery = "S"
    }
    await store.pour(.searchQueryChangeDebounced)
    await store.receive(.searchResponseFailure)
  }

  @Test func clearQueryCancelsInFlightSearchRequest() async {
    let store = TestStation(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.weatherClient.search = { _ in .mock }
    }

    let searchQueryChanged = await store.pour(.searchQueryChanged("S")) {
      $0.searchQuery = "S"
    }
    await searchQueryChanged.cancel()
    await store.pour(.searchQueryChanged("")) {
      $0.searchQuery = ""
    }
  }

  @Test func tapOnLocation() async {
    let specialResult = GeocodingSearch.Result(
      country: "Special Country", latitude: 0, longitude: 0, id: 42, name: "Special Place")
    var results = GeocodingSearch.mock.results
    results.append(specialResult)

    let store = TestStation(initialState: Search.State(results: results)) {
      Search()
    } withDependencies: {
      $0.weatherClient.forecast = { _ in .mock }
    }

    await store.pour(.searchResultTapped(specialResult)) {
      $0.resultForecastRequestInFlight = specialResult
    }
    await store.receive(.forecastResponse) {
      $0.resultForecastRequestInFlight = nil
      $0.weather = mockWeather(id: 42)
    }
  }

  @Test func tapOnLocationCancelsInFlightRequest() async {
    let specialResult = GeocodingSearch.Result(
      country: "Special Country", latitude: 0, longitude: 0, id: 42, name: "Special Place")
    var results = GeocodingSearch.mock.results
    results.append(specialResult)
    let clock = TestClock()

    let store = TestStation(initialState: Search.State(results: results)) {
      Search()
    } withDependencies: {
      $0.weatherClient.forecast = { _ in
        try await clock.sleep(for: .seconds(0))
        return .mock
      }
    }

    await store.pour(.searchResultTapped(results[0])) {
      $0.resultForecastRequestInFlight = results[0]
    }
    await store.pour(.searchResultTapped(specialResult)) {
      $0.resultForecastRequestInFlight = specialResult
    }
    await clock.advance()
    await store.receive(.forecastResponse) {
      $0.resultForecastRequestInFlight = nil
      $0.weather = mockWeather(id: 42)
    }
  }

  @Test func tapOnLocationFailure() async {
    let results = GeocodingSearch.mock.results

    let store = TestStation(initialState: Search.State(results: results)) {
      Search()
    } withDependencies: {
      $0.weatherClient.forecast = { _ in throw SomethingWentWrong() }
    }

    await store.pour(.searchResultTapped(results[0])) {
      $0.resultForecastRequestInFlight = results[0]
    }
    await store.receive(.forecastResponse) {
      $0.resultForecastRequestInFlight = nil
    }
  }
}
