import HTTP1
import JSON
import JWT
import OAuthGrants
import ServerKit

extension OAuthService {
    /// `POST /oauth/token`. On a database the loop's thread reads itself (SQLite), short work
    /// (``ContextRouteHandler/shortCompleting(_:)``): a client credentials grant of a confidential client with a
    /// secret (``clientCredentialsNow(_:fields:from:answer:failure:)``, issue 86) and a relying party's
    /// `authorization_code` exchange with its secret (``exchangeOpenIDCodeNow(_:fields:then:)``, issue 88) are answered
    /// from the loop and their write's commit; every other request in a task, as on PostgreSQL, where the route is a
    /// task's.
    var tokenRoute: ContextRouteHandler {
        let clientCredentialsShort = grants.queuesWritesFromCallingThread && configuration.clientCredentials
        guard clientCredentialsShort || openID?.signIns.callingThread != nil else {
            return .deferred { [self] request, context, _ in
                await middleware.run(.endpoint, context) {
                    try await token(request, from: context.clientAddress?.description)
                }
            }
        }
        return .shortCompleting { [self] request, context, _, completion in
            middleware.runCompleting(.endpoint, context, completion) { answer in
                let address = context.clientAddress?.description
                let failure = { @Sendable [self] (error: any Error) in middleware.answer(error, context) }
                if request.contentTypeIsForm {
                    let fields = request.formFields()
                    let reply = { @Sendable (result: Result<HTTPResponse, any Error>) in
                        switch result {
                        case .success(let response): answer(response)
                        case .failure(let error): answer(failure(error))
                        }
                    }
                    do {
                        if try clientCredentialsNow(request, fields: fields, from: address, answer: answer, failure: failure) {
                            return
                        }
                        if try exchangeOpenIDCodeNow(request, fields: fields, then: reply) { return }
                    } catch let refusal as OAuthError {
                        return answer(failure(refusal))
                    } catch {
                        // Nothing done (a read the loop could not make now: the database busy past its short wait):
                        // the task's path answers it, as on PostgreSQL.
                    }
                }
                Task { [self] in
                    do { answer(try await token(request, from: address)) } catch { answer(failure(error)) }
                }
            }
        }
    }

    /// `POST /oauth/introspect`. On a database the loop's thread reads itself (SQLite), short work: a live access token
    /// introspected by a confidential client with a secret is answered on the loop (``introspectionNow(_:)``: the
    /// client and the grant read on the loop thread's own connection, the signature of known bytes not checked again);
    /// anything else (another kind of token, an inactive one, another way of authenticating, a refusal) in a task as on
    /// PostgreSQL, where the route is a task's.
    var introspectionRoute: ContextRouteHandler {
        guard accessTokens.readsOnCallingThread, confidentialClients.readsOnCallingThread else {
            return .deferred { [self] request, context, _ in
                await middleware.run(.introspect, context) { try await introspect(request) }
            }
        }
        return .shortCompleting { [self] request, context, _, completion in
            middleware.runCompleting(.introspect, context, completion) { answer in
                if let response = introspectionNow(request) { return answer(response) }
                Task { [self] in
                    do { answer(try await introspect(request)) } catch { answer(middleware.answer(error, context)) }
                }
            }
        }
    }

    /// The introspection of a live access token of this issuer, by a confidential client with a secret, answered on the
    /// calling thread; nil for any other request, and for any failure (the task's path then answers it, refusals
    /// included, exactly as before).
    func introspectionNow(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.contentTypeIsForm else { return nil }
        let fields = request.formFields()
        guard let token = fields["token"], token.utf8.count <= PublishedKeySet.maximumTokenLength,
            token.utf8.contains(UInt8(ascii: ".")),
            let client = try? confidentialClientNow(request, fields: fields), client.introspection
        else { return nil }
        let now = clock()
        guard let verified = try? accessTokens.verify(token, now: now),
            let members = liveAccessTokenMembers(
                verified, grant: try? accessTokens.recordOnCallingThread(for: verified.claims), now: now)
        else { return nil }
        metrics.introspections.increment()
        return OAuthJSON.response(.ok, .object(members))
    }
}
