package jobs

// PasswordChecks is how many password-hash checks sign-in has made.
func PasswordChecks(s *Service) int64 { return s.passwordChecks.Load() }
