// The recipes' shell lines: a path is one word for the shell, whatever it holds.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { shellWord } from '../src/protocol/shell-word.js';

t.test('a plain path stays as it is; anything else is single-quoted so that sh reads it back whole', async (t) => {
  t.equal(shellWord('/home/me/graphmind-ai/dist/cli/graphmind.js'), '/home/me/graphmind-ai/dist/cli/graphmind.js');
  t.equal(shellWord('/home/me/My Projects/cli.js'), "'/home/me/My Projects/cli.js'");
  for (const word of ['/a b/c.js', "/it's/here.js", '/$HOME/`x`/"q"/*.js', 'tab\there', '']) {
    const echoed = execFileSync('sh', ['-c', `printf '%s' ${shellWord(word)}`], { encoding: 'utf8' });
    t.equal(echoed, word, `sh reads ${JSON.stringify(word)} back as one word`);
  }
});
