import { ENGINE_LABEL, engineShown, engineTooltip, type EngineChoice, type EnginesInfo } from '../../lib/engine-choice.js';

const CHOICES: readonly EngineChoice[] = ['local', 'trino', 'auto'];

/**
 * "Run on: Junction · Trino · Auto", beside Run and Explain; shown only when the server has a
 * Trino backend. A radio group: one choice, arrow keys move it, and a screen reader names it.
 */
export function RunOnControl({
  info,
  picked,
  disabled,
  onPick,
}: {
  info: EnginesInfo;
  picked: EngineChoice | undefined;
  disabled: boolean;
  onPick(choice: EngineChoice): void;
}) {
  const shown = engineShown(info, picked);
  const trino = info.trino;
  return (
    <div className="j-run-on" role="radiogroup" aria-label="Run on" title={engineTooltip(info, picked)} data-testid="run-on">
      <span className="j-run-on-label" aria-hidden>
        Run on
      </span>
      {CHOICES.map((c) => {
        // Trino away: its option cannot run there now and says why; Auto still runs, on Junction
        const off = c === 'trino' && trino !== null && !trino.available;
        return (
          <label
            key={c}
            className={`j-run-on-option${shown === c ? ' j-on' : ''}${off ? ' j-off' : ''}`}
            title={off ? (trino?.message ?? 'Trino cannot run queries now.') : undefined}
          >
            <input
              type="radio"
              name="run-on"
              value={c}
              checked={shown === c}
              disabled={disabled || off}
              onChange={() => onPick(c)}
            />
            {ENGINE_LABEL[c]}
          </label>
        );
      })}
    </div>
  );
}
