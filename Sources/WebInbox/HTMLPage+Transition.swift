import HTTP1
import ServerKit

// Transition only (issue 52): this surface's pages are still text until converted to `HTML`; removed with it.
extension HTMLPage {
    static func response(_ status: HTTPStatus, _ html: String, setCookies: [String] = []) -> HTTPResponse {
        response(status, HTML(unsafe: html), setCookies: setCookies)
    }

    static func document(
        title: String, css: String = "", header: String, main: String, footer: String = "Postern"
    ) -> String {
        document(title: title, css: css, header: HTML(unsafe: header), main: HTML(unsafe: main),
            footer: HTML(unsafe: footer)).text
    }
}
