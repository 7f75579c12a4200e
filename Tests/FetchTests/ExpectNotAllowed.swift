import OutboundSocket
import Testing

@testable import Fetch

/// Expects `body` to throw ``FetchError/notAllowed(_:)`` (of `category` when given).
func expectNotAllowed<T>(
    _ comment: String = "", category: AddressCategory? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("no error: \(comment)", sourceLocation: sourceLocation)
    } catch let error as FetchError {
        guard case .notAllowed(let found) = error, category == nil || category == found else {
            Issue.record(
                "\(error) instead of notAllowed(\(category.map { "\($0)" } ?? "")): \(comment)",
                sourceLocation: sourceLocation)
            return
        }
    } catch {
        Issue.record("\(error): \(comment)", sourceLocation: sourceLocation)
    }
}
