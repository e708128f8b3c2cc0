package lambdaapi

import (
	"net/http"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/callscribe/callscribe/shared/service/identity"
)

// CognitoSessions authenticates dashboard requests on AWS from the claims API
// Gateway's JWT authorizer verified and attached to the request context. Our code
// never sees an unverified token: API Gateway rejects requests without a valid
// Cognito JWT before invoking the function. A request with no claims (an API key,
// a misconfigured route without the authorizer) is refused all the same.
type CognitoSessions struct{}

// AuthenticateSession implements httpapi.SessionAuthenticator: the account is
// the Cognito user's `sub`.
func (CognitoSessions) AuthenticateSession(r *http.Request) (string, error) {
	rc, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok || rc.Authorizer == nil || rc.Authorizer.JWT == nil {
		return "", identity.ErrInvalidSession
	}
	sub := rc.Authorizer.JWT.Claims["sub"]
	if sub == "" {
		return "", identity.ErrInvalidSession
	}
	return sub, nil
}
