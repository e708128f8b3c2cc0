package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/callscribe/callscribe/shared/client"
)

// LoginCmd signs in and saves the session.
type LoginCmd struct {
	Email    string `help:"Account email (prompted for when missing)."`
	Password string `help:"Password (prompted for without echo when missing; a flag is visible to other users of the machine, so prefer the prompt or stdin)."`
}

func (LoginCmd) Help() string {
	return `Signs in to the dashboard (the service's own sign-in locally, Cognito on AWS) and
saves the service URL and the session in the config file (mode 0600). The session
is what 'keys' and 'usage' use; the /v1 commands use an API key.

Examples:

    callscribe login --email you@example.com
    callscribe --base-url https://api.example.com login
    printf '%s\n' "$PASSWORD" | callscribe login --email you@example.com`
}

func (c *LoginCmd) Run(e *env) error {
	email, password, err := readCredentials(e, c.Email, c.Password)
	if err != nil {
		return err
	}
	return signIn(e, email, password)
}

// readCredentials completes an email and password given by flags from the
// terminal (the password without echo) or, piped, from stdin lines.
func readCredentials(e *env, email, password string) (string, string, error) {
	in := bufio.NewReader(e.stdin)
	stdinFile, interactive := e.stdin.(*os.File)
	interactive = interactive && term.IsTerminal(int(stdinFile.Fd()))
	// Prompts only for a person at a terminal: piped input is read silently,
	// so stderr keeps only the one error line.
	prompt := func(s string) {
		if interactive {
			fmt.Fprint(e.stderr, s)
		}
	}
	email = strings.TrimSpace(email)
	if email == "" {
		prompt("Email: ")
		line, err := readLine(in)
		if err != nil {
			return "", "", usagef("no email: pass --email or type it at the prompt")
		}
		email = line
	}
	if password == "" {
		prompt("Password: ")
		var err error
		if interactive {
			var b []byte
			b, err = term.ReadPassword(int(stdinFile.Fd()))
			fmt.Fprintln(e.stderr)
			password = string(b)
		} else {
			password, err = readLine(in)
		}
		if err != nil || password == "" {
			return "", "", usagef("no password: type it at the prompt or pipe it on stdin")
		}
	}
	return email, password, nil
}

// signIn signs in and saves the session in the config file.
func signIn(e *env, email, password string) error {
	cl, s, err := e.newClient()
	if err != nil {
		return err
	}
	session, err := cl.Login(e.ctx, email, password)
	if err != nil {
		return err
	}
	file := s.File
	if strings.TrimRight(file.BaseURL, "/") != s.BaseURL {
		// Another service: nothing of the old one's credentials carries over.
		file = fileConfig{}
	}
	file.BaseURL = s.BaseURL
	file.Email = email
	file.SessionToken = session.Token
	file.SessionExpiresAt = session.ExpiresAt
	if err := saveConfig(s.ConfigPath, file); err != nil {
		return err
	}
	until := ""
	if !session.ExpiresAt.IsZero() {
		until = " until " + formatWhen(session.ExpiresAt)
	}
	_, err = fmt.Fprintf(e.stdout, "Signed in to %s as %s%s (saved in %s).\n", s.BaseURL, email, until, s.ConfigPath)
	return err
}

// SignupCmd creates an account and signs in.
type SignupCmd struct {
	Email    string `help:"Account email (prompted for when missing)."`
	Password string `help:"Password, 10 to 72 characters (prompted for without echo when missing)."`
	Code     string `help:"The confirmation code a Cognito user pool emailed, to finish a sign-up that asked for one."`
}

func (SignupCmd) Help() string {
	return `Creates a dashboard account (the service's own sign-up locally, Cognito on AWS),
then signs in and saves the session like 'login'. When a Cognito user pool asks to
verify the email, run the command again with the emailed --code.

Examples:

    callscribe signup --email you@example.com
    callscribe signup --email you@example.com --code 123456`
}

func (c *SignupCmd) Run(e *env) error {
	email, password, err := readCredentials(e, c.Email, c.Password)
	if err != nil {
		return err
	}
	cl, _, err := e.newClient()
	if err != nil {
		return err
	}
	if c.Code != "" {
		err = cl.ConfirmSignup(e.ctx, email, c.Code)
	} else {
		err = cl.Signup(e.ctx, email, password)
	}
	if errors.Is(err, client.ErrConfirmationRequired) {
		_, err = fmt.Fprintf(e.stdout, "Account created; the service emailed a confirmation code to %s. Finish with:\n    callscribe signup --email %s --code CODE\n", email, email)
		return err
	}
	if client.IsCode(err, client.CodeEmailTaken) {
		return &hintError{err, fmt.Sprintf("Sign in instead: callscribe login --email %s", email)}
	}
	if err != nil {
		return err
	}
	e.status("Created the account %s.\n", email)
	return signIn(e, email, password)
}

// readLine reads one line without its line ending; EOF with nothing read is an error.
func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	if err == io.EOF && line != "" {
		err = nil
	}
	return line, err
}

// KeysCmd groups the API key commands.
type KeysCmd struct {
	Create        KeysCreateCmd        `cmd:"" help:"Create an API key and print its secret (shown only once)."`
	List          KeysListCmd          `cmd:"" help:"List the account's API keys."`
	Revoke        KeysRevokeCmd        `cmd:"" help:"Revoke an API key."`
	SigningSecret KeysSigningSecretCmd `cmd:"" name:"signing-secret" help:"Show (or rotate) the secret that signs tag callbacks."`
}

// KeysCreateCmd creates an API key.
type KeysCreateCmd struct {
	Name string `help:"A name for the key (sent to the service; not stored by the current service)."`
	Save bool   `help:"Also save the key in the config file as the default API key."`
}

func (KeysCreateCmd) Help() string {
	return `Prints the secret alone on stdout, so it can be captured; the service never shows
it again.

Examples:

    callscribe keys create --save
    export CALLSCRIBE_API_KEY=$(callscribe keys create --name ci)`
}

func (c *KeysCreateCmd) Run(e *env) error {
	cl, err := e.sessionClient()
	if err != nil {
		return err
	}
	key, err := cl.CreateAPIKey(e.ctx, c.Name)
	if err != nil {
		return err
	}
	e.status("Created API key %s. Its secret follows; it is not shown again.\n", key.ID)
	if _, err := fmt.Fprintln(e.stdout, key.Secret); err != nil {
		return err
	}
	if c.Save {
		s, _ := e.settings()
		file := s.File
		if strings.TrimRight(file.BaseURL, "/") != s.BaseURL {
			// The file holds another service's credentials (the session came
			// from the environment): the key must not be paired with them.
			file = fileConfig{}
		}
		file.BaseURL = s.BaseURL
		file.APIKey = key.Secret
		if err := saveConfig(s.ConfigPath, file); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "Saved as the default API key for %s in %s.\n", s.BaseURL, s.ConfigPath)
	}
	return nil
}

// KeysListCmd lists API keys.
type KeysListCmd struct {
}

func (KeysListCmd) Help() string {
	return "Examples:\n\n    callscribe keys list\n    callscribe keys list --json"
}

func (c *KeysListCmd) Run(e *env) error {
	cl, err := e.sessionClient()
	if err != nil {
		return err
	}
	keys, err := cl.ListAPIKeys(e.ctx)
	if err != nil {
		return err
	}
	if e.globals.JSON {
		for _, k := range keys {
			if err := writeJSONLine(e.stdout, k); err != nil {
				return err
			}
		}
		return nil
	}
	if len(keys) == 0 {
		_, err := fmt.Fprintln(e.stdout, "No API keys.")
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY ID\tPREFIX\tCREATED\tLAST USED")
	for _, k := range keys {
		last := "never"
		if k.LastUsedAt != nil {
			last = formatWhen(*k.LastUsedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.ID, orDash(k.Prefix), formatWhen(k.CreatedAt), last)
	}
	return tw.Flush()
}

// KeysRevokeCmd revokes an API key.
type KeysRevokeCmd struct {
	ID string `arg:"" name:"key-id" help:"The key's id (from 'keys list')."`
}

func (KeysRevokeCmd) Help() string {
	return "Example:\n\n    callscribe keys revoke 3f9a2c1e-..."
}

func (c *KeysRevokeCmd) Run(e *env) error {
	cl, err := e.sessionClient()
	if err != nil {
		return err
	}
	if err := cl.RevokeAPIKey(e.ctx, c.ID); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "Revoked API key %s.\n", c.ID)
	return err
}

// KeysSigningSecretCmd shows or rotates the webhook signing secret.
type KeysSigningSecretCmd struct {
	Rotate bool `help:"Replace the secret; the old one keeps signing beside the new one for 24 hours."`
}

func (KeysSigningSecretCmd) Help() string {
	return `Tag callbacks carry webhook-id, webhook-timestamp and webhook-signature
headers (Standard Webhooks); receivers verify them with this secret, e.g. with
the Go client's VerifyWebhook.

Examples:

    callscribe keys signing-secret
    callscribe keys signing-secret --rotate`
}

func (c *KeysSigningSecretCmd) Run(e *env) error {
	cl, err := e.sessionClient()
	if err != nil {
		return err
	}
	get := cl.SigningSecret
	if c.Rotate {
		get = cl.RotateSigningSecret
	}
	s, err := get(e.ctx)
	if err != nil {
		return err
	}
	if e.globals.JSON {
		return writeJSONLine(e.stdout, s)
	}
	if _, err := fmt.Fprintln(e.stdout, s.SigningSecret); err != nil {
		return err
	}
	if s.PreviousValidUntil != nil {
		_, err = fmt.Fprintf(e.stderr, "The previous secret keeps signing deliveries beside this one until %s.\n", formatWhen(*s.PreviousValidUntil))
	}
	return err
}

// UsageCmd shows the quota, or with --daily the minutes per UTC day.
type UsageCmd struct {
	Daily bool   `help:"Show the minutes per UTC day of this month and last (the days with usage) and the top upload languages."`
	Month string `help:"With --daily, the later of the two months instead of the current one." placeholder:"YYYY-MM"`
}

func (UsageCmd) Help() string {
	return "Needs 'callscribe login' (the service answers usage to a dashboard session only).\n\nExamples:\n\n    callscribe usage\n    callscribe usage --json\n    callscribe usage --daily\n    callscribe usage --daily --month 2026-10 --json"
}

func (c *UsageCmd) Run(e *env) error {
	if c.Month != "" && !c.Daily {
		return usagef("--month goes with --daily")
	}
	cl, err := e.sessionClient()
	if err != nil {
		return err
	}
	if c.Daily {
		return c.daily(e, cl)
	}
	u, err := cl.Usage(e.ctx)
	if err != nil {
		return err
	}
	if e.globals.JSON {
		return writeJSONLine(e.stdout, map[string]float64{"limit_minutes": u.LimitMinutes, "used_minutes": u.UsedMinutes, "remaining_minutes": u.RemainingMinutes})
	}
	_, err = fmt.Fprintf(e.stdout, "Limit:      %s\nUsed:       %s\nRemaining:  %s\n",
		formatMinutes(u.LimitMinutes), formatMinutes(u.UsedMinutes), formatMinutes(u.RemainingMinutes))
	return err
}

// daily prints the two months' days with usage and the top languages; with
// --json the service's whole answer, every day included, as one line.
func (c *UsageCmd) daily(e *env, cl *client.Client) error {
	d, err := cl.DailyUsage(e.ctx, c.Month)
	if err != nil {
		return err
	}
	if e.globals.JSON {
		return writeJSONLine(e.stdout, d)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DAY (UTC)\tMINUTES\tCALLS")
	for _, m := range d.Months {
		for _, day := range m.Days {
			if day.Jobs > 0 || day.Minutes > 0 {
				fmt.Fprintf(tw, "%s\t%s\t%d\n", day.Date, formatMinutes(day.Minutes), day.Jobs)
			}
		}
		fmt.Fprintf(tw, "%s total\t%s\t\n", m.Month, formatMinutes(m.UsedMinutes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(d.TopLanguages) == 0 {
		return nil
	}
	fmt.Fprintln(e.stdout, "\nTop languages by minutes:")
	for _, l := range d.TopLanguages {
		name := "(detected at run time)"
		if l.Language != nil {
			name = *l.Language
		}
		fmt.Fprintf(e.stdout, "  %-24s %s\n", name, formatMinutes(l.Minutes))
	}
	return nil
}
