extension Task where Success == Never, Failure == Never {
  /// Suspends until the task is cancelled, then throws `CancellationError`: TCA's `Task.never()`,
  /// for an effect that must stay alive until its feature goes away.
  ///
  /// ```swift
  /// case .onAppear:
  ///   return .run { _ in
  ///     defer { socket.close() }
  ///     try await Task.never()
  ///   }
  ///   .cancellable(id: SocketID())
  /// ```
  public static func never() async throws -> Never {
    for await _ in AsyncStream<Never>.never {}
    throw _Concurrency.CancellationError()
  }
}

extension AsyncStream {
  /// A stream that never yields and never ends, until the task iterating it is cancelled: a
  /// test's stand-in for a live stream that stays quiet.
  ///
  /// ```swift
  /// $0.screenshots = { .never }
  /// ```
  public static var never: Self { Self { _ in } }

  /// A stream that has already ended: a test's stand-in for a live stream with nothing in it.
  public static var finished: Self { Self { $0.finish() } }
}

extension AsyncThrowingStream where Failure == any Error {
  /// A stream that never yields and never ends, until the task iterating it is cancelled.
  public static var never: Self { Self { _ in } }

  /// A stream that has already ended, without an error.
  public static var finished: Self { Self { $0.finish() } }

  /// A stream that has already ended, with `error` if one is given: TCA's
  /// `AsyncThrowingStream.finished(throwing:)`.
  ///
  /// ```swift
  /// $0.speech.start = { _ in .finished(throwing: SpeechError.denied) }
  /// ```
  public static func finished(throwing error: (any Error)? = nil) -> Self {
    Self { $0.finish(throwing: error) }
  }
}

extension Result {
  /// The result of an asynchronous throwing call: TCA's `Result { try await … }`, the usual way
  /// an effect hands a response and its failure back as one action.
  ///
  /// ```swift
  /// return .run { [query = state.query] pour in
  ///   await pour(.searchResponse(Result { try await weather.search(query) }))
  /// }
  /// ```
  public init(catching body: () async throws(Failure) -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }
}
