import HTTP1
import ServerKit

/// A page of the owner's area, rendered whole (``OwnerActorsPage``, ``OwnerClientsPage``, ``OwnerAppPasswordsPage``,
/// ``OwnerDomainsPage``).
protocol OwnerPage {
    /// The page's HTML, every value escaped.
    func render() -> HTML
}

extension OwnerService {
    /// An owner's page answered with `status`: made with the request's CSRF token (`make`), then changed by
    /// `configure` (an error, a notice); the CSRF cookie is set when the request carried none.
    func respond<Page: OwnerPage>(
        _ request: HTTPRequest, status: HTTPStatus, configure: (inout Page) -> Void,
        page make: (_ csrfToken: String) async throws -> Page
    ) async throws -> HTTPResponse {
        let (token, setCookie) = browser.csrf(for: request)
        var page = try await make(token)
        configure(&page)
        return HTMLPage.response(status, page.render(), setCookies: setCookie.map { [$0] } ?? [])
    }
}

extension OwnerActorsPage: OwnerPage {}
extension OwnerClientsPage: OwnerPage {}
extension OwnerAppPasswordsPage: OwnerPage {}
extension OwnerDomainsPage: OwnerPage {}
