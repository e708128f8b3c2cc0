package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/identity"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// cognitoPath is where the stand-in answers; COGNITO_ENDPOINT points there.
const cognitoPath = "/cognito-idp/"

// localClientID is the stand-in's app client id (any value works: it has one).
const localClientID = "local-app-client"

// cognitoStandIn answers the three calls the dashboard page makes to a Cognito
// user pool, in Cognito's JSON protocol (POST with X-Amz-Target
// AWSCognitoIdentityProviderService.<Action>, application/x-amz-json-1.1):
// SignUp (users are confirmed at once, as a pool with auto-verification
// would), ConfirmSignUp, and InitiateAuth with USER_PASSWORD_AUTH, whose
// IdToken is a local session token that the emulated JWT authorizer accepts.
// Accounts are the service's own, so the page's sign-in and the API's
// /dashboard/login stand-in see the same users.
type cognitoStandIn struct {
	service  *jobs.Service
	sessions *identity.Sessions
}

func (c *cognitoStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Headers", "content-type, x-amz-target, x-amz-user-agent")
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var in struct {
		ClientID       string            `json:"ClientId"`
		Username       string            `json:"Username"`
		Password       string            `json:"Password"`
		AuthFlow       string            `json:"AuthFlow"`
		AuthParameters map[string]string `json:"AuthParameters"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if r.Method != http.MethodPost || json.Unmarshal(body, &in) != nil {
		cognitoError(w, "InvalidParameterException", "Send a JSON request body with POST.")
		return
	}
	if in.ClientID != localClientID {
		cognitoError(w, "ResourceNotFoundException", "User pool client does not exist.")
		return
	}
	switch r.Header.Get("X-Amz-Target") {
	case "AWSCognitoIdentityProviderService.SignUp":
		acct, err := c.service.Signup(r.Context(), in.Username, in.Password)
		switch {
		case callscribe.IsCode(err, callscribe.CodeEmailTaken):
			cognitoError(w, "UsernameExistsException", "An account with the given email already exists.")
		case callscribe.IsCode(err, callscribe.CodeInvalidSignup):
			cognitoError(w, "InvalidPasswordException", callscribe.ErrorMessage(err))
		case err != nil:
			cognitoError(w, "InternalErrorException", "Sign-up failed.")
		default:
			cognitoJSON(w, map[string]any{"UserConfirmed": true, "UserSub": acct.ID})
		}
	case "AWSCognitoIdentityProviderService.ConfirmSignUp":
		cognitoJSON(w, map[string]any{})
	case "AWSCognitoIdentityProviderService.InitiateAuth":
		if in.AuthFlow != "USER_PASSWORD_AUTH" {
			cognitoError(w, "InvalidParameterException", "Only USER_PASSWORD_AUTH is enabled for this client.")
			return
		}
		from, _, _ := net.SplitHostPort(r.RemoteAddr)
		acct, err := c.service.Login(r.Context(), in.AuthParameters["USERNAME"], in.AuthParameters["PASSWORD"], from)
		if callscribe.IsCode(err, callscribe.CodeRateLimited) {
			cognitoError(w, "NotAuthorizedException", "Password attempts exceeded")
			return
		}
		if err != nil {
			cognitoError(w, "NotAuthorizedException", "Incorrect username or password.")
			return
		}
		token, _ := c.sessions.Issue(acct.ID)
		cognitoJSON(w, map[string]any{"AuthenticationResult": map[string]any{
			"IdToken": token, "AccessToken": token, "ExpiresIn": int(identity.SessionTTL.Seconds()), "TokenType": "Bearer",
		}})
	default:
		cognitoError(w, "UnknownOperationException", "Unknown operation.")
	}
}

func cognitoJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(v)
}

func cognitoError(w http.ResponseWriter, kind, message string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", kind)
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": kind, "message": message})
}
