/** A dialog form's last lines: its error, if any, then submit and dismiss. */
export function FormFooter({
  error,
  busy,
  submit,
  busyText,
  dismiss = 'Cancel',
  onDismiss,
}: {
  error?: string;
  busy: boolean;
  submit: string;
  busyText: string;
  dismiss?: string;
  onDismiss(): void;
}) {
  return (
    <>
      {error && (
        <p className="j-error" role="alert">
          {error}
        </p>
      )}
      <div className="j-row">
        <button type="submit" className="j-primary" disabled={busy}>
          {busy ? busyText : submit}
        </button>
        <button type="button" onClick={onDismiss}>
          {dismiss}
        </button>
      </div>
    </>
  );
}
