-- wrk script of the bench's refresh row (scripts/bench fills @TOKENS@ and @THREADS@): POST /oauth/token with
-- grant_type=refresh_token. The tokens file holds the client id, then refresh tokens each heading its own grant.
-- Thread k of n takes every n-th token; each request spends one token and each 200 returns the next of that
-- grant's chain, so a token is never presented twice (which would be a reuse and revoke its grant).
local counter = 0
function setup(thread)
    thread:set("index", counter)
    counter = counter + 1
end

local client, tokens = nil, {}
function init(args)
    local index, n, i = tonumber(wrk.thread:get("index")), tonumber("@THREADS@"), 0
    for line in io.lines("@TOKENS@") do
        if client == nil then
            client = line
        else
            if i % n == index then tokens[#tokens + 1] = line end
            i = i + 1
        end
    end
end

local headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }
function request()
    local token = table.remove(tokens)
    if token == nil then
        -- Out of tokens (answers that were not 200 returned none): an error the report counts as non-2xx.
        return wrk.format("POST", "/oauth/token", headers, "grant_type=refresh_token&client_id=" .. client)
    end
    return wrk.format("POST", "/oauth/token", headers,
        "grant_type=refresh_token&client_id=" .. client .. "&refresh_token=" .. token)
end

function response(status, _, body)
    local token = body:match('"refresh_token":"([^"]+)"')
    if token then tokens[#tokens + 1] = token end
end
