import { describe, expect, it } from 'vitest';
import { classifyObservation } from '../../../../src/eval/formats/agent-status.js';

describe('classifyObservation: the corpus status rules for agent logs, in one place', () => {
  it('a failure the log records is an error, with the output as the message', () => {
    expect(classifyObservation({ tool: 'str_replace_editor', output: "Parameter 'command' is expected to be one of [...]", failed: true })).toEqual({
      status: 'error',
      error: "Parameter 'command' is expected to be one of [...]",
    });
    expect(classifyObservation({ tool: 'x', output: '', failed: true })).toEqual({ status: 'error', error: 'failed' });
  });

  it('a non-zero exit is an error when the command printed something, not when it was silent', () => {
    expect(classifyObservation({ tool: 'bash', command: 'cat a.py', output: 'cat: a.py: No such file or directory\n', exitCode: 1 }).status).toBe('error');
    expect(classifyObservation({ tool: 'bash', command: 'test -f a.py', output: '', exitCode: 1 }).status).toBe('ok');
  });

  it.each([
    'Traceback (most recent call last):\n  File "x.py", line 1',
    '  File "x.py", line 4\n    def f()\n          ^\nSyntaxError: invalid syntax',
    'django.core.exceptions.ImproperlyConfigured: x\nValueError: bad value',
    'ERROR:\nParameter `old_str` is required for command: str_replace.',
    'Error: reservation not found',
    'Your proposed edit has introduced new syntax error(s). Please read this error message carefully',
    'No replacement was performed, old_str `x` did not appear verbatim in /a.c.',
    'HTTP 404 Not Found',
  ])('the output says it failed: %j', (output) => {
    expect(classifyObservation({ tool: 'tool', output, exitCode: 0 }).status).toBe('error');
  });

  it.each([
    ['grep -rn "foo" src', ''],
    ['cd /repo && find . -name "*.pony"', ''],
    ['cat list.txt | grep needle', ''],
  ])('a shell search that printed nothing is empty: %s', (command, output) => {
    expect(classifyObservation({ tool: 'bash', command, output, exitCode: 1 }).status).toBe('empty');
  });

  it('a search tool that found nothing is empty: [], no matches', () => {
    expect(classifyObservation({ tool: 'search_direct_flight', output: '[]' }).status).toBe('empty');
    expect(classifyObservation({ tool: 'search_dir', output: 'No matches found for "DataElement" in /repo' }).status).toBe('empty');
  });

  it('silence from a command that is not a search is success', () => {
    expect(classifyObservation({ tool: 'bash', command: "sed -i 's/a/b/' x.py", output: '', exitCode: 0 }).status).toBe('ok');
  });

  it('a search that found something is ok; prose that mentions errors is not a failure', () => {
    expect(classifyObservation({ tool: 'bash', command: 'grep -n x a.c', output: '12: x = 1', exitCode: 0 }).status).toBe('ok');
    expect(classifyObservation({ tool: 'respond', output: 'I got an error earlier, can you try again?' }).status).toBe('ok');
  });
});
